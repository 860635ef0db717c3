import random
from collections import Counter
from itertools import permutations

from mazziere.engine import chance, stream


def test_same_seed_and_counter_give_the_same_shuffle():
    items = tuple(range(40))
    assert chance.shuffled(items, b"seed", 3) == chance.shuffled(items, b"seed", 3)


def test_counter_and_seed_change_the_shuffle():
    items = tuple(range(40))
    base = chance.shuffled(items, b"seed", 0)
    assert chance.shuffled(items, b"seed", 1) != base
    assert chance.shuffled(items, b"other", 0) != base
    assert sorted(base) == list(items)


def test_shuffle_ignores_the_process_wide_random_module():
    items = tuple(range(10))
    random.seed(1)
    first = chance.shuffled(items, b"s", 0)
    random.seed(2)
    assert chance.shuffled(items, b"s", 0) == first


def test_fisher_yates_is_unbiased_over_all_permutations():
    """Chi-square over the 24 orders of 4 items: far below the 0.1% critical value (49.7 at 23 d.o.f.)."""
    trials = 24_000
    counts = Counter(chance.shuffled("abcd", b"uniformity", i) for i in range(trials))
    assert set(counts) == {tuple(p) for p in permutations("abcd")}
    expected = trials / 24
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 49.7


def test_randbelow_stays_in_range_and_covers_it():
    seen = Counter(chance.randbelow(7, b"r", i) for i in range(2000))
    assert set(seen) == set(range(7))
    assert min(seen.values()) > 200


def test_stream_extends_when_rejections_use_up_the_buffer():
    # n just above 2**31 rejects almost half the words; the stream must extend, not fail.
    values = [chance.randbelow(2**31 + 1, b"x", i) for i in range(200)]
    assert all(0 <= v <= 2**31 for v in values)


def test_an_extended_stream_reads_on_from_where_the_buffer_ended():
    """When rejections use up the buffer, the stream is extended, not restarted: each draw is the first word of
    SHAKE-256(deal domain || SHA-256(mix domain || seed || entropy)), read four bytes at a time, that falls below
    the rejection limit, where seed is the draw's seed (HMAC of the secret and the draw number)."""
    import hashlib
    import hmac

    n = 2**31 + 1  # nearly half of all words are rejected
    limit = 2**32 - 2**32 % n
    extended = 0
    for draw in range(512):
        seed = hmac.new(b"x", b"mazziere/seed/v2" + draw.to_bytes(8, "big"), hashlib.sha256).digest()
        key = hashlib.sha256(b"mazziere/mix/v2" + seed).digest()  # no entropy
        raw = hashlib.shake_256(b"mazziere/deal/v2" + key).digest(4096)
        words = [int.from_bytes(raw[i : i + 4], "big") for i in range(0, len(raw), 4)]
        first = next(i for i, w in enumerate(words) if w < limit)
        extended += first >= 5  # beyond the five words a single draw reads first
        assert chance.randbelow(n, b"x", draw) == words[first] % n
    assert extended  # some draws needed the extension


def test_draw_seed_is_the_standard_hmac_sha256_at_every_key_length():
    """The seed's HMAC is written out over hashlib: the same bytes as the standard library's for keys shorter,
    as long as and longer than SHA-256's 64-byte block."""
    import hashlib
    import hmac

    for length in range(0, 140):
        secret = bytes(range(length % 256))[:length] or b""
        for draw in (0, 1, 255, 2**40):
            message = chance.SEED_DOMAIN + draw.to_bytes(8, "big")
            assert chance.draw_seed(secret, draw) == hmac.digest(secret, message, hashlib.sha256)


def _plain_order(items, stream):
    """Fisher-Yates as the algorithm states it, one draw of ``below`` per place."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def test_the_inlined_shuffle_draws_as_the_plain_fisher_yates():
    """The shuffle's inlined loop takes the same words as ``below`` would: in the usual case, where a word is
    rejected, where the words read run out, and for lists longer than its table of limits."""
    for size in (2, 5, 32, 40, 80, 128, 129, 300):
        for draw in range(20):
            seed = chance.draw_seed(b"plain", draw)
            out = list(range(size))
            stream.Stream(seed, b"", size).shuffle(out)
            assert out == _plain_order(range(size), stream.Stream(seed, b"", size))
    rejecting = stream.Stream(b"seed", b"", 8)  # words at the very top are rejected for every n
    rejecting._words = (2**32 - 1, 7, 2**32 - 1, 2**32 - 1, 3, *rejecting._words[:3])
    plain = stream.Stream(b"seed", b"", 8)
    plain._words = rejecting._words
    out = list(range(8))
    rejecting.shuffle(out)
    assert out == _plain_order(range(8), plain)
    assert rejecting._next == plain._next
