"""Heatmaps and dotplots (matplotlib, headless).

Both take arrays, never files, and write a PNG; matplotlib is imported only
when a plot is drawn, with the ``Agg`` backend.
"""

from __future__ import annotations

import numpy as np

from .matrix import cluster_order


def _pyplot():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def heatmap(matrix, names, path, title, label, order_by=None, vmin=None, vmax=1.0,
            cmap="viridis"):
    """Draw a labelled square heatmap in clustered order.

    Parameters
    ----------
    matrix : ndarray, shape (n, n)
        Values, row = query, column = subject.
    names : list of str
        Genome labels.
    path : str
        Output PNG.
    title, label : str
        Plot title and colour-bar label.
    order_by : ndarray, optional
        Symmetric distances that set the clustered order (default:
        ``1 - (matrix + matrix.T) / 2``).
    vmin, vmax : float, optional
        Colour range; ``vmin`` defaults to the smallest finite value.
    cmap : str
        Matplotlib colour map.
    """
    plt = _pyplot()
    m = np.asarray(matrix, dtype=float)
    if order_by is None:
        filled = np.where(np.isnan(m), 0.0, m)
        order_by = 1.0 - (filled + filled.T) / 2.0
    order = cluster_order(order_by)
    m = m[np.ix_(order, order)]
    labels = [names[i] for i in order]
    n = len(labels)
    finite = m[np.isfinite(m)]
    if vmin is None:
        vmin = float(finite.min()) if finite.size else 0.0
    size = max(4.0, 0.6 * n + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(range(n), labels, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), labels, fontsize=8)
    ax.set_xlabel("subject")
    ax.set_ylabel("query")
    ax.set_title(title)
    if n <= 15:
        for i in range(n):
            for j in range(n):
                if np.isfinite(m[i, j]):
                    dark = (m[i, j] - vmin) / max(vmax - vmin, 1e-9) < 0.6
                    ax.text(j, i, f"{m[i, j]:.3f}", ha="center", va="center", fontsize=7,
                            color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label=label, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def dotplot(paf, target_names, target_lengths, query_names, query_lengths, path, title,
            min_identity=None):
    """Draw the alignments of one pair: target on x, query on y.

    Records are laid end to end in genome order with grey lines at their
    boundaries. Each alignment is a segment coloured by its identity
    (matches over aligned columns); ``+`` strand segments rise, ``-`` strand
    segments fall and are drawn dashed.

    Parameters
    ----------
    paf : gpukernels.merge.Paf
        The pair's alignments.
    target_names, query_names : list of str
    target_lengths, query_lengths : list of int
        Records of the two genomes, in genome order.
    path : str
        Output PNG.
    title : str
    min_identity : float, optional
        Lower end of the colour scale (default: the lowest identity shown).
    """
    plt = _pyplot()
    from matplotlib.collections import LineCollection

    t_off = dict(zip(target_names, np.concatenate([[0], np.cumsum(target_lengths)[:-1]])))
    q_off = dict(zip(query_names, np.concatenate([[0], np.cumsum(query_lengths)[:-1]])))
    t_total, q_total = int(np.sum(target_lengths)), int(np.sum(query_lengths))
    fig, ax = plt.subplots(figsize=(7.5, 6.5))
    ident = np.divide(paf.matches, np.maximum(paf.block, 1)).astype(float)
    vmin = float(ident.min()) if min_identity is None and len(paf) else (min_identity or 0.7)
    vmin = min(vmin, 0.99)
    norm = plt.Normalize(vmin=vmin, vmax=1.0)
    cmap = plt.get_cmap("plasma_r")
    for strand, style in ((1, "solid"), (-1, (0, (2, 1)))):
        sel = np.flatnonzero(paf.strand == strand)
        if not len(sel):
            continue
        segs = []
        for i in sel:
            x0 = t_off[paf.tname[i]] + paf.tstart[i]
            x1 = t_off[paf.tname[i]] + paf.tend[i]
            y0 = q_off[paf.qname[i]] + paf.qstart[i]
            y1 = q_off[paf.qname[i]] + paf.qend[i]
            segs.append(((x0, y0), (x1, y1)) if strand > 0 else ((x0, y1), (x1, y0)))
        lc = LineCollection(segs, colors=cmap(norm(ident[sel])), linewidths=1.4, linestyles=style,
                            label="+ strand (rising)" if strand > 0 else "- strand (falling, dashed)")
        ax.add_collection(lc)
        # a dot at each segment's middle keeps short alignments visible
        mids = np.array([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in segs])
        ax.scatter(mids[:, 0], mids[:, 1], s=4, c=cmap(norm(ident[sel])),
                   marker="o" if strand > 0 else "x", linewidths=0.6, zorder=3)
    for off in list(t_off.values())[1:]:
        ax.axvline(off, color="0.7", lw=0.6)
    for off in list(q_off.values())[1:]:
        ax.axhline(off, color="0.7", lw=0.6)
    ax.set_xlim(0, t_total)
    ax.set_ylim(0, q_total)
    _record_ticks(ax.set_xticks, target_names, target_lengths, t_off, "x", ax)
    _record_ticks(ax.set_yticks, query_names, query_lengths, q_off, "y", ax)
    ax.set_title(title)
    sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
    fig.colorbar(sm, ax=ax, label="identity (matches / aligned columns)", shrink=0.8)
    if len(paf):
        ax.legend(loc="upper left", fontsize=7, framealpha=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _record_ticks(setter, names, lengths, offsets, axis, ax):
    """Record names at record midpoints when few, else positions in Mb."""
    if len(names) <= 12:
        mids = [offsets[n] + ln / 2 for n, ln in zip(names, lengths)]
        short = [n if len(n) <= 18 else n[:16] + ".." for n in names]
        setter(mids, short, fontsize=7, rotation=0 if axis == "y" else 20)
    (ax.set_xlabel if axis == "x" else ax.set_ylabel)(
        ("target" if axis == "x" else "query") + f" ({sum(lengths) / 1e6:.2f} Mb)")
