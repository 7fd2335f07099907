"""How much of onnx's backend node test suite survives graph-opt's ONNX round trip.

Usage: python bench/onnx_coverage.py [-v]   (-v lists every case that is not passed)
"""

from __future__ import annotations

import sys

from graph_opt.formats.onnx.conformance import PASSED, check_all_backend_cases, counts


def main(verbose: bool) -> None:
    results = check_all_backend_cases()
    summary = counts(results)
    passed, total = summary["roundtrip"]
    unsupported, cases = summary["runtime_unsupported"]
    interpreted_ok, interpreted = summary["interpreter"]
    opaque_ok, opaque = summary["interpreter_opaque"]
    wrong, _ = summary["interpreter_opaque_wrong"]
    refused, _ = summary["interpreter_opaque_refused"]
    print(f"backend node cases:            {cases}")
    print(f"round trip passed:             {passed}/{total}")
    print(f"not runnable by any runtime:   {unsupported}")
    print(f"interpreter passed:            {interpreted_ok}/{interpreted}")
    print(f"interpreter, nn.opaque cases:  {opaque_ok}/{opaque}", end=" ")
    print(f"({wrong} wrong outputs, {refused} refused)")
    if verbose:
        for r in results:
            if r.roundtrip != PASSED:
                print(f"  {r.roundtrip}: {r.name}: {r.reason}")
            if r.interpreter not in (None, PASSED):
                print(
                    f"  interpreter {r.interpreter}: {r.name}: {r.interpreter_reason}"
                )


if __name__ == "__main__":
    main("-v" in sys.argv[1:])
