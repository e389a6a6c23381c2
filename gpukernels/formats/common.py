"""Per-alignment values shared by the writers."""

from __future__ import annotations

import numpy as np

from ..alignments import OP_D, OP_EQ, OP_I, OP_X


def rows(alns, target, query):
    """Yield one dict per alignment with names, sizes, coordinates and counts."""
    counts = alns.counts()
    for k in range(len(alns)):
        tr, qr = int(alns.t_rec[k]), int(alns.q_rec[k])
        m, x, ins, dele, opens = (int(v) for v in counts[k])
        yield dict(k=k, tname=target.names[tr], tlen=int(target.lengths[tr]), t0=int(alns.t_start[k]),
                   t1=int(alns.t_end[k]), qname=query.names[qr], qlen=int(query.lengths[qr]),
                   q0=int(alns.q_start[k]), q1=int(alns.q_end[k]),
                   strand="-" if alns.strand[k] else "+", score=int(alns.score[k]),
                   matches=m, mismatches=x, ins=ins, dels=dele, gap_opens=opens,
                   columns=m + x + ins + dele)


def aligned_text(alns, k, target, query):
    """The two gapped strings of alignment ``k`` (target, query as aligned).

    The query text is reverse-complemented on the minus strand. Soft-masked
    bases are written in lowercase.
    """
    ops = alns.columns(k)
    tr, qr = int(alns.t_rec[k]), int(alns.q_rec[k])
    t_s = target.starts[tr] + alns.t_start[k] - target.offsets[tr]
    t_e = target.starts[tr] + alns.t_end[k] - target.offsets[tr]
    q_s = query.starts[qr] + alns.q_start[k] - query.offsets[qr]
    q_e = query.starts[qr] + alns.q_end[k] - query.offsets[qr]
    letters_upper = np.frombuffer(b"ACGTN-", dtype=np.uint8)
    letters_lower = np.frombuffer(b"acgtn-", dtype=np.uint8)

    def text(codes, mask):
        return np.where(mask, letters_lower[codes], letters_upper[codes])

    t_txt = text(target.codes[t_s:t_e], target.softmask[t_s:t_e])
    q_codes = query.codes[q_s:q_e]
    q_mask = query.softmask[q_s:q_e]
    if alns.strand[k]:
        comp = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)
        q_codes = comp[q_codes[::-1]]
        q_mask = q_mask[::-1]
    q_txt = text(q_codes, q_mask)
    gap = ord("-")
    t_out = np.full(len(ops), gap, dtype=np.uint8)
    q_out = np.full(len(ops), gap, dtype=np.uint8)
    t_has = (ops == OP_EQ) | (ops == OP_X) | (ops == OP_D)
    q_has = (ops == OP_EQ) | (ops == OP_X) | (ops == OP_I)
    t_out[t_has] = t_txt
    q_out[q_has] = q_txt
    return t_out.tobytes().decode(), q_out.tobytes().decode()
