"""`IdentityMemo` answers for the very object it was given, per key, and stays bounded."""

from graph_opt.identity_memo import IdentityMemo


def test_values_are_per_object_and_key():
    memo: IdentityMemo[str] = IdentityMemo(limit=8)
    first, equal = (1, 2), tuple([1, 2])
    memo.put(first, "a")
    memo.put(first, "b", key="name")
    assert memo.get(first) == "a" and memo.get(first, "name") == "b"
    assert equal == first and memo.get(equal) is None


def test_forgets_everything_at_its_limit():
    memo: IdentityMemo[int] = IdentityMemo(limit=2)
    objects = [object() for _ in range(3)]
    for i, obj in enumerate(objects):
        memo.put(obj, i)
    assert memo.get(objects[0]) is None and memo.get(objects[2]) == 2
