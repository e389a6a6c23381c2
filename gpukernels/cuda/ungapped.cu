// Ungapped x-drop extension: twin of cpu/ungapped.extend_hits, in two kernels.
// extend_diagonals_lanes: a thread per diagonal runs the CPU's letter-by-letter loop over the
// diagonal's hits in query order, each pass capped at LANE_PASS_CAP letters. Most hits are random
// and their passes end a few dozen letters out, so nearly every diagonal ends there. A diagonal
// whose pass runs past the cap is handed on, from that hit, to
// extend_diagonals: one warp per diagonal (GPUGECKO), which takes the remaining hits in query
// order, skips those behind the diagonal's extent (binary search), and extends each one 32 * LPL
// letters at a time, then 32 * LPL_LONG (each lane's own letters in registers, then sums and maxima
// over the lanes by shuffles), stopping exactly where the CPU's loop stops. On E. coli MG1655 x DH1
// (52.7 M hits) the two took 18.4 ms where a warp per diagonal took 47.6 ms (bench/RESULTS.md).

#define FULL 0xffffffffu

// Letters per lane in the steps of a pass after its first: such a step scores 32 * LPL letters with
// two warp scans (the first step, one letter per lane, ends most passes: they stop a few dozen
// letters past the end of the similarity).
#ifndef LPL
#define LPL 4
#endif

// Letters per lane in the steps of a pass after its first LONG_AFTER: a pass that long is on an HSP
// of kilobases (the warp kernel's passes are the ones that ran past the lane kernel's cap; 16 and 32
// took 4.4 and 4.1 ms of E. coli's warp kernel, 4 took 7.1 ms).
#ifndef LPL_LONG
#define LPL_LONG 32
#endif
#ifndef LONG_AFTER
#define LONG_AFTER 4
#endif

// Letters per lane read before any is counted in an HSP's identity count (a megabase HSP's count is
// its warp's longest loop: its loads in flight together, not one after another).
#ifndef COUNT_UNROLL
#define COUNT_UNROLL 8
#endif

// One step of an x-drop pass: letters c .. c + 32 * K - 1 (those below L), K consecutive ones per
// lane. The lane sums and maxima of its own letters, then one exclusive sum and one inclusive
// maximum over the lanes place every letter, relative to the running score at the step's start (a
// step moves it by at most 32 * K * 1000, so 32 bits hold them). Updates run, best, the letter of
// the best (bk) and the letters processed; returns whether the pass ended here.
template <int K>
__device__ __forceinline__ bool xdrop_step(const unsigned char* t, const unsigned char* q, long long pos,
                                           long long diag, long long L, int dir, const int* mat, long long xdrop,
                                           int lane, long long c, long long& run, long long& best, long long& bk,
                                           long long& processed)
{
    const long long k0 = c + (long long)lane * K;
    // this lane's letters: running sum p and running maximum m of it, relative to the step's start
    int p[K], m[K];
    int nvalid = 0, acc = 0, mx = -0x7fffffff;
#pragma unroll
    for (int i = 0; i < K; ++i) {
        const long long k = k0 + i;
        int v = 0;
        if (k < L) {
            const long long s = dir < 0 ? pos - 1 - k : pos + k;
            v = mat[t[s + diag] * 6 + q[s]];
            nvalid = i + 1;
        }
        acc += v;
        p[i] = acc;
        mx = (k < L && acc > mx) ? acc : mx;
        m[i] = mx;
    }
    // the running score before this lane's letters (exclusive sum), and the best before them
    int e = acc;
    for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(FULL, e, o);
        if (lane >= o) e += u;
    }
    e -= acc;
    int x = nvalid ? e + m[K - 1] : -0x7fffffff;     // the best this lane's letters reach
    int xin = x;
    for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(FULL, xin, o);
        if (lane >= o && u > xin) xin = u;
    }
    int xex = __shfl_up_sync(FULL, xin, 1);
    if (lane == 0) xex = -0x7fffffff;
    const long long bestrel = best - run;               // at most xdrop: the pass went on
    const long long before = xex > bestrel ? (long long)xex : bestrel;
    // this lane's first letter that falls more than xdrop below the best so far
    int fi = K;
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
        const long long b = e + m[i] > before ? (long long)(e + m[i]) : before;
        if (i < nvalid && (long long)(e + p[i]) < b - xdrop) fi = i;
    }
    const unsigned fails = __ballot_sync(FULL, fi < K);
    const unsigned valids = __ballot_sync(FULL, nvalid > 0);
    const int fl = fails ? __ffs(fails) - 1 : 31 - __clz(valids);      // the lane of the last letter
    // letters of this lane up to the last one processed: all of them before fl, none after
    const int upto = lane < fl ? nvalid : (lane == fl ? (fails ? fi + 1 : nvalid) : 0);
    int lmax = -0x7fffffff, lat = 0, lastp = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) {
        if (i < upto && e + p[i] > lmax) { lmax = e + p[i]; lat = i; }
        if (i < upto) lastp = p[i];
    }
    const int mall = __reduce_max_sync(FULL, lmax);
    if ((long long)mall > bestrel) {
        const unsigned at = __ballot_sync(FULL, upto > 0 && lmax == mall);
        const int wl = __ffs(at) - 1;
        bk = c + (long long)wl * K + __shfl_sync(FULL, lat, wl);
        best = run + mall;
    }
    run += __shfl_sync(FULL, e + lastp, fl);                          // the score after the last letter
    processed = c + (long long)fl * K + __shfl_sync(FULL, upto, fl);
    return fails != 0;
}

// One x-drop pass over L letters from pos, walking left (dir < 0: letters
// pos-1, pos-2, ...) or right (letters pos, pos+1, ...). Returns the best
// score; *best_k = index of the letter where it was first reached (-1: none
// above 0); *done = letters processed (up to and with the first letter where
// the running score fell more than xdrop below the best, as the CPU's loop).
__device__ long long xdrop_pass(const unsigned char* t, const unsigned char* q, long long pos, long long diag,
                                long long L, int dir, const int* mat, long long xdrop, int lane,
                                long long* best_k, long long* done)
{
    long long run = 0, best = 0, bk = -1, processed = 0;
    bool ended = L <= 0 || xdrop_step<1>(t, q, pos, diag, L, dir, mat, xdrop, lane, 0, run, best, bk, processed);
    long long c = 32;
    for (int k = 0; k < LONG_AFTER && !ended && c < L; ++k, c += 32 * LPL)
        ended = xdrop_step<LPL>(t, q, pos, diag, L, dir, mat, xdrop, lane, c, run, best, bk, processed);
    for (; !ended && c < L; c += 32 * LPL_LONG)
        ended = xdrop_step<LPL_LONG>(t, q, pos, diag, L, dir, mat, xdrop, lane, c, run, best, bk, processed);
    *best_k = bk;
    *done = processed;
    return best;
}

// Letters a thread's pass reads before it hands its diagonal on to the warp kernel: a random hit's
// passes end a few dozen letters out (the word, then some 20 letters below the x-drop).
#ifndef LANE_PASS_CAP
#define LANE_PASS_CAP 96
#endif

// The letters of the code arrays as one thread walks them: read through aligned 8-byte words, the
// last one kept, so a walk of n letters takes about n / 8 loads. A word is known by bits 3..31 of
// its address, which tell apart the words of an array under 4 GiB. (An aligned word that holds one
// letter of the array lies in its allocation.) Reading the next word of a walk ahead was slower
// (more registers: 30 against 17 ms a pair's ungapped calls).
struct LetterReader {
    unsigned held;
    unsigned long long word;

    // starts with the letter at p
    __device__ explicit LetterReader(const unsigned char* p)
    {
        load(p);
    }

    __device__ __forceinline__ void load(const unsigned char* p)
    {
        held = (unsigned)(unsigned long long)p >> 3;
        word = __ldg((const unsigned long long*)((unsigned long long)p & ~7ull));
    }

    // the letter at origin + off, where lo is the low 32 bits of origin's address (a pass keeps
    // both, and steps off: the address in full is made only for a load)
    __device__ __forceinline__ int at(const unsigned char* origin, unsigned lo, int off)
    {
        const unsigned a = lo + (unsigned)off;
        if (a >> 3 != held) load(origin + off);
        return (int)(word >> ((a & 7u) << 3)) & 0xff;
    }

    __device__ __forceinline__ int at(const unsigned char* p)
    {
        return at(p, (unsigned)(unsigned long long)p, 0);
    }
};

// Identical A, C, G, T pairs of the letters [0, n) from tp and qp, added to c[0..3].
__device__ __forceinline__ void lane_counts(LetterReader& tr, LetterReader& qr, const unsigned char* tp,
                                            const unsigned char* qp, int n, int* c)
{
    for (int k = 0; k < n; ++k) {
        const int x = qr.at(qp + k);
        if (x < 4 && tr.at(tp + k) == x) ++c[x];
    }
}

// A diagonal of the lane kernel: its hits h .. b - 1, the query position q of hit h, the diagonal
// (target - query) and its extent.
// The start of a lane's pass over `letters` letters: at most LANE_PASS_CAP of them to do (capped:
// the pass has letters past the cap), the running score and the best at zero.
__device__ __forceinline__ void lane_pass_start(long long letters, int& todo, bool& capped, int& run, int& best) {
    todo = letters < LANE_PASS_CAP ? (int)letters : LANE_PASS_CAP;
    capped = letters > LANE_PASS_CAP;
    run = best = 0;
}

struct LaneDiagonal {
    long long h, b, q, diag, ext;
};

__device__ __forceinline__ LaneDiagonal lane_diagonal(long long w, const long long* seg, const long long* seg_q,
                                                      const long long* seg_diag, const long long* seg_ext)
{
    return LaneDiagonal{seg[w], seg[w + 1], seg_q[w], seg_diag[w], seg_ext[w]};
}

// Letters of a pass a loop turn of the lane kernel takes at most.
#ifndef LANE_UNROLL
#define LANE_UNROLL 4
#endif

#ifndef LANE_MIN_BLOCKS
#define LANE_MIN_BLOCKS 4
#endif

// Each thread takes diagonals w, w + G, w + 2G, ... (G: the grid's threads), a score of them, so
// that the threads of a warp get about the same work; one loop turn is up to LANE_UNROLL letters of
// a pass, or the move to the next pass, hit or diagonal, so that a thread whose hit ended goes on
// with its next one while the others of its warp still extend theirs. What a move needs from
// memory is read a hit or a diagonal ahead (the diagonals' first hits, diagonals and extents come
// gathered by the host: seg_q, seg_diag, seg_ext), so a move waits on no load (but for the hits
// it skips behind the diagonal's extent, one load each). A diagonal whose
// pass would go on past LANE_PASS_CAP letters is handed on from that hit (rest_lo, rest_hi;
// *n_rest counts them) to extend_diagonals, with its extent as it stood before the hit.
extern "C" __global__ void __launch_bounds__(256, LANE_MIN_BLOCKS)
extend_diagonals_lanes(const unsigned char* t, long long tn, const unsigned char* q, long long qn,
                       const long long* sq, const long long* perm, const long long* seg, const long long* seg_q,
                       const long long* seg_diag, const long long* seg_ext, long long nseg, long long* diag_end,
                       const int* matrix, int span, long long xdrop, long long min_score, long long* out_q0,
                       long long* out_q1, long long* out_score, int* out_counts, unsigned char* out_ok,
                       long long* rest_lo, long long* rest_hi, unsigned long long* n_rest)
{
    __shared__ int mat[36];
    for (int x = threadIdx.x; x < 36; x += blockDim.x) mat[x] = matrix[x];
    __syncthreads();
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nseg) return;
    const int xd = (int)xdrop;
    LaneDiagonal g = lane_diagonal(w, seg, seg_q, seg_diag, seg_ext);
    LaneDiagonal next = w + stride < nseg ? lane_diagonal(w + stride, seg, seg_q, seg_diag, seg_ext) : g;
    long long limit = qn < tn - g.diag ? qn : tn - g.diag;
    LetterReader tr(t + g.diag + g.q), qr(q + g.q);
    // the pass, from the hit's word end pos (tp, qp: its letters; tlo, qlo: their addresses' low
    // 32 bits): letter off, then off + dir, ... (dir -1: the left pass, from off -1; +1: the right
    // pass, from off 0), todo of them at most before the cap (capped: the pass has letters past
    // it), the running score and the best (scores stay within LANE_PASS_CAP * 1000 of zero: 32 bits
    // hold them), and where the best puts the pass's end (pos + mark)
    long long pos = 0, hq = 0;
    const unsigned char *tp = t, *qp = q;
    unsigned tlo = 0, qlo = 0;
    int dir = 0, off = 0, mark = 0, start = 0, todo = 0, run = 0, best = 0, left = 0;
    bool capped = false, pass = false;     // pass: a pass is under way (else: the next hit)
    for (;;) {
        if (pass) {
            if (todo > 0 && run >= best - xd) {
#pragma unroll
                for (int u = 0; u < LANE_UNROLL; ++u) {
                    if (u == 0 || (todo > 0 && run >= best - xd)) {
                        run += mat[tr.at(tp, tlo, off) * 6 + qr.at(qp, qlo, off)];
                        if (run > best) {
                            best = run;
                            mark = off + (dir > 0);
                        }
                        off += dir;
                        --todo;
                    }
                }
                continue;
            }
            pass = false;
            if (capped && run >= best - xd) {
                // handed on from this hit
                const unsigned long long r = atomicAdd(n_rest, 1ull);
                rest_lo[r] = g.h;
                rest_hi[r] = g.b;
                g.h = g.b;
            } else if (dir < 0) {
                left = best;
                start = mark;
                off = mark = 0;
                dir = 1;
                lane_pass_start(limit - pos, todo, capped, run, best);
                pass = true;
                continue;
            } else {
                if (pos + off > g.ext) g.ext = pos + off;
                if (mark > start && (long long)(left + best) >= min_score) {
                    int c[4] = {0, 0, 0, 0};
                    lane_counts(tr, qr, tp + start, qp + start, mark - start, c);
                    const long long o = perm[g.h];
                    out_q0[o] = pos + start;
                    out_q1[o] = pos + mark;
                    out_score[o] = left + best;
                    for (int k = 0; k < 4; ++k) out_counts[4 * o + k] = c[k];
                    out_ok[o] = 1;
                }
                ++g.h;
                g.q = hq;
            }
        }
        // the diagonal's next hit at or past its extent, else the thread's next diagonal
        while (g.h < g.b && g.q < g.ext) {
            ++g.h;
            if (g.h < g.b) g.q = sq[g.h];
        }
        if (g.h >= g.b) {
            diag_end[g.diag + qn] = g.ext;
            w += stride;
            if (w >= nseg) return;
            g = next;
            if (w + stride < nseg) next = lane_diagonal(w + stride, seg, seg_q, seg_diag, seg_ext);
            limit = qn < tn - g.diag ? qn : tn - g.diag;
            continue;
        }
        if (g.h + 1 < g.b) hq = sq[g.h + 1];   // the next hit's, read while this one extends
        pos = g.q + span;
        qp = q + pos;
        tp = t + g.diag + pos;
        qlo = (unsigned)(unsigned long long)qp;
        tlo = (unsigned)(unsigned long long)tp;
        long long stop = g.ext < 0 ? 0 : g.ext;
        if (stop < -g.diag) stop = -g.diag;
        off = -1;
        start = mark = 0;
        dir = -1;
        lane_pass_start(pos - stop, todo, capped, run, best);
        pass = true;
    }
}

// One warp's diagonal: its hits a .. b - 1.
__device__ void extend_rest(const unsigned char* t, long long tn, const unsigned char* q, long long qn,
                            const long long* sq, const long long* st, const long long* perm, long long a,
                            long long b, long long* diag_end, const int* mat, int span, long long xdrop,
                            long long min_score, long long* out_q0, long long* out_q1, long long* out_score,
                            int* out_counts, unsigned char* out_ok, int lane)
{
    long long diag = st[a] - sq[a];
    long long d = diag + qn;
    long long ext = diag_end[d];
    long long h = a;
    while (h < b) {
        if (sq[h] < ext) {
            // first hit at or past the extent (query positions ascend)
            long long lo = h + 1, hi = b;
            while (lo < hi) {
                long long m = (lo + hi) >> 1;
                if (sq[m] < ext) lo = m + 1; else hi = m;
            }
            h = lo;
            if (h >= b) break;
        }
        long long qp = sq[h];
        long long pos = qp + span;
        long long stop = ext < 0 ? 0 : ext;
        if (stop < -diag) stop = -diag;
        long long lk, ldone, rk, rdone;
        long long left = xdrop_pass(t, q, pos, diag, pos - stop, -1, mat, xdrop, lane, &lk, &ldone);
        long long limit = qn < tn - diag ? qn : tn - diag;
        long long right = xdrop_pass(t, q, pos, diag, limit - pos, 1, mat, xdrop, lane, &rk, &rdone);
        long long start = lk >= 0 ? pos - 1 - lk : pos;
        long long end = rk >= 0 ? pos + rk + 1 : pos;
        long long s = pos + rdone;
        if (s > ext) ext = s;
        long long o = perm[h];
        if (end > start && left + right >= min_score) {
            int c0 = 0, c1 = 0, c2 = 0, c3 = 0;
            for (long long x = start + lane; x < end; x += 32 * COUNT_UNROLL) {
                int cq[COUNT_UNROLL], ct[COUNT_UNROLL];
#pragma unroll
                for (int u = 0; u < COUNT_UNROLL; ++u) {
                    const long long y = x + 32 * u;
                    cq[u] = y < end ? q[y] : 4;
                    ct[u] = y < end ? t[y + diag] : 5;
                }
#pragma unroll
                for (int u = 0; u < COUNT_UNROLL; ++u) {
                    const int c = cq[u];
                    if (c < 4 && ct[u] == c) {
                        c0 += c == 0; c1 += c == 1; c2 += c == 2; c3 += c == 3;
                    }
                }
            }
            for (int off = 16; off > 0; off >>= 1) {
                c0 += __shfl_down_sync(FULL, c0, off);
                c1 += __shfl_down_sync(FULL, c1, off);
                c2 += __shfl_down_sync(FULL, c2, off);
                c3 += __shfl_down_sync(FULL, c3, off);
            }
            if (lane == 0) {
                out_q0[o] = start;
                out_q1[o] = end;
                out_score[o] = left + right;
                out_counts[4 * o] = c0;
                out_counts[4 * o + 1] = c1;
                out_counts[4 * o + 2] = c2;
                out_counts[4 * o + 3] = c3;
                out_ok[o] = 1;
            }
        }
        ++h;
    }
    if (lane == 0) diag_end[d] = ext;
}

// The diagonals handed on by extend_diagonals_lanes: rest_lo[r] .. rest_hi[r] - 1 are the hits left
// of the r-th (r < *n_rest), taken by the warps in turn (next counts the ones taken).
extern "C" __global__ void extend_diagonals(const unsigned char* t, long long tn, const unsigned char* q,
                                            long long qn, const long long* sq, const long long* st,
                                            const long long* perm, const long long* rest_lo,
                                            const long long* rest_hi, const unsigned long long* n_rest,
                                            unsigned long long* next, long long* diag_end, const int* matrix,
                                            int span, long long xdrop, long long min_score, long long* out_q0,
                                            long long* out_q1, long long* out_score, int* out_counts,
                                            unsigned char* out_ok)
{
    __shared__ int mat[36];
    for (int x = threadIdx.x; x < 36; x += blockDim.x) mat[x] = matrix[x];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const unsigned long long rests = *n_rest;
    for (;;) {
        unsigned long long r = 0;
        if (lane == 0) r = atomicAdd(next, 1ull);
        r = __shfl_sync(FULL, r, 0);
        if (r >= rests) return;
        extend_rest(t, tn, q, qn, sq, st, perm, rest_lo[r], rest_hi[r], diag_end, mat, span, xdrop, min_score,
                    out_q0, out_q1, out_score, out_counts, out_ok, lane);
    }
}

// Anchors: twin of cpu/ungapped.anchors. One block per HSP. An HSP longer than the window has
// L - window + 1 window starts; each thread takes a run of consecutive starts, scores its first
// window letter by letter and slides it over the rest, keeping its first best (a later start must
// score more). The block then keeps the best score at the smallest start: the CPU's first best,
// since the runs lie in start order. A megabase HSP, which the host slid over in milliseconds on
// the − strand's critical path, takes a few thousand steps per thread here.
extern "C" __global__ void hsp_anchors(const unsigned char* t, const unsigned char* q, const long long* q0,
                                       const long long* q1, const long long* t0, const int* mat, int window,
                                       long long* anchor_q, long long* anchor_t)
{
    __shared__ int smat[36];
    __shared__ int wbest[32];
    __shared__ long long wstart[32];
    if (threadIdx.x < 36) smat[threadIdx.x] = mat[threadIdx.x];
    __syncthreads();
    const long long k = blockIdx.x;
    const long long a = q0[k], L = q1[k] - a, diag = t0[k] - a;
    long long off = L / 2;
    if (L > window) {
        const long long starts = L - window + 1;
        const long long per = (starts + blockDim.x - 1) / blockDim.x;
        long long j = (long long)threadIdx.x * per;
        const long long jend = j + per < starts ? j + per : starts;
        int best = -0x7fffffff;
        long long bj = 0x7fffffffffffffffLL;
        if (j < jend) {
            int sc = 0;
            for (int x = 0; x < window; ++x) {
                const long long s = a + j + x;
                sc += smat[t[s + diag] * 6 + q[s]];
            }
            best = sc;
            bj = j;
            for (++j; j < jend; ++j) {
                const long long s_out = a + j - 1, s_in = a + j + window - 1;
                sc += smat[t[s_in + diag] * 6 + q[s_in]] - smat[t[s_out + diag] * 6 + q[s_out]];
                if (sc > best) {
                    best = sc;
                    bj = j;
                }
            }
        }
        // the block's best, ties to the smaller start: over the warp, then over the warps
        for (int o = 16; o > 0; o >>= 1) {
            const int ob = __shfl_down_sync(FULL, best, o);
            const long long oj = __shfl_down_sync(FULL, bj, o);
            if (ob > best || (ob == best && oj < bj)) {
                best = ob;
                bj = oj;
            }
        }
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
        if (lane == 0) {
            wbest[warp] = best;
            wstart[warp] = bj;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < nwarps; ++w) {
                if (wbest[w] > best || (wbest[w] == best && wstart[w] < bj)) {
                    best = wbest[w];
                    bj = wstart[w];
                }
            }
        }
        off = bj + window / 2;
    }
    if (threadIdx.x == 0) {
        anchor_q[k] = a + off;
        anchor_t[k] = t0[k] + off;
    }
}
