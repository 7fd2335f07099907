"""`collector_paused`: no collection inside, and cycles made inside are still collected later."""

import gc
import weakref

from graph_opt.gc_pause import collector_paused


class Node:
    def __init__(self):
        self.self_reference = self


def test_cycles_made_while_paused_are_collected_later():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        garbage = Node()
        alive = weakref.ref(garbage)
        del garbage
        gc.collect(0)  # explicit collections still run; the cycle is garbage now
    assert gc.isenabled()
    with collector_paused():
        kept = Node()
        probe = weakref.ref(kept)
        del kept
    gc.collect()
    assert probe() is None and alive() is None


def test_the_collector_stays_off_when_it_was_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
