// Wavefront alignment (WFA) of many pairs: gap-affine and edit distance.
//
// The rules (recurrences, tie order, end test) are those of the numba twin,
// gpukernels/cpu/wfa.py, so both backends give the same score and CIGAR.
//
// Layout
//   * Sequences are 2-bit packed, 16 bases per 32-bit word, base j of a
//     sequence in bits 2*(j%16) of word j/16; every sequence starts on a word
//     and the buffer ends with two spare words, so a 16-base window can always
//     read two words. The LCP compares 16 bases per XOR.
//   * One block aligns one pair at a time, one thread per diagonal (threads
//     stride over wider wavefronts), one barrier per score. A fixed grid pulls
//     pairs from a queue (atomic counter over `idx`).
//   * Wavefronts live in rings in the block's slice of global memory: M keeps
//     the last max(x, o+e) + 1 scores, I and D the last e + 1 (edit distance:
//     2). The pair's packed sequences are staged in shared memory when they
//     fit (seq_cap > 0). The eWFA kernel keeps ring, sequences and backtrace
//     pool in shared memory.
//   * Backtrace is piggybacked: each cell carries a 32-bit word of up to 15
//     2-bit ops below a sentinel bit, and the index of the previous 15-op
//     block; a full word is flushed to the block's pool as one (word, prev)
//     entry, so a path costs about 4 bits per op. Ops: 0 X, 1 I, 2 D,
//     3 close (gap-affine only: the path re-enters M and extends).
//   * wfa_affine_packed (cigar_mode "packed") carries no chains: each cell
//     leaves 4 bits in per-score bit planes, walked back once at the end into
//     the same op list (see "gap-affine, packed backtrace" below).
//   * A pair whose pool or ring bound is exceeded gets status 1 and is redone
//     by the launcher (larger pool, then the CPU twin): results never change.
//   * wfa_replay turns each op list into CIGAR letters (one thread per pair);
//     wfa_compact packs those letters without gaps.

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define WFA_NULL (-1073741824)
#define BT_NONE 0xFFFFFFFFu
#define BT_FULL 0x40000000u
#define OP_X 0u
#define OP_I 1u
#define OP_D 2u
#define OP_C 3u
#define ST_OVERFLOW 1
#define ST_BAD_REPLAY 2

// ---------------------------------------------------------------- sequences

__device__ __forceinline__ u32 seq_window(const u32* w, i64 base, int pos)
{
    const u32* p = w + base + (pos >> 4);
    return __funnelshift_r(p[0], p[1], (u32)((pos & 15) << 1));
}

// Furthest offset on diagonal k reached by matches from offset h.
__device__ int wfa_extend(const u32* w, i64 pw, int n, i64 tw, int m, int h, int k)
{
    int v = h - k;
    while (v < n && h < m) {
        u32 d = seq_window(w, pw, v) ^ seq_window(w, tw, h);
        int run = d ? ((__ffs((int)d) - 1) >> 1) : 16;
        int lim = min(n - v, m - h);
        if (run >= lim) return h + lim;
        h += run;
        v += run;
        if (run < 16) return h;
    }
    return h;
}

// ---------------------------------------------------------------- backtrace

// Append op to the chain (w, p); flush a full word to the pool first.
__device__ __forceinline__ void bt_push(u32& w, u32& p, u32 op, u64* pool, int cap,
                                        int* count, int& ovf)
{
    if (w >= BT_FULL) {
        int i = atomicAdd(count, 1);
        if (i < cap) {
            pool[i] = ((u64)p << 32) | (u64)w;
        } else {
            ovf = 1;
        }
        p = (u32)i;
        w = 1u;
    }
    w = (w << 2) | op;
}

// Walk the chain backwards and store its ops, last op first, 16 per word.
// Returns the number of ops, or -1 when they do not fit in `cap` words.
__device__ int bt_store(u32 w, u32 p, const u64* pool, u32* out, i64 cap)
{
    int count = 0;
    u32 acc = 0;
    for (;;) {
        while (w > 1u) {
            acc |= (w & 3u) << ((count & 15) << 1);
            w >>= 2;
            ++count;
            if ((count & 15) == 0) {
                if ((count >> 4) > cap) return -1;
                out[(count >> 4) - 1] = acc;
                acc = 0;
            }
        }
        if (p == BT_NONE) break;
        u64 e = pool[p];
        w = (u32)e;
        p = (u32)(e >> 32);
    }
    if (count & 15) {
        if ((count >> 4) + 1 > cap) return -1;
        out[count >> 4] = acc;
    }
    return count;
}

// ---------------------------------------------------------------- shared bits

__device__ __forceinline__ int bump(int h) { return h >= 0 ? h + 1 : WFA_NULL; }

__device__ __forceinline__ int mismatch_cand(int xs, int k, int n, int m)
{
    int xv = bump(xs);
    return (xv > m || xv - k > n) ? WFA_NULL : xv;
}

// Tie order X, I, D; src gets 0, 1 or 2.
__device__ __forceinline__ int pick3(int xv, int iv, int dv, int& src)
{
    if (xv >= iv && xv >= dv) { src = 0; return xv; }
    if (iv >= dv) { src = 1; return iv; }
    src = 2;
    return dv;
}

struct PairInfo {
    int n, m;
    i64 pw, tw;
};

// Thread 0 takes the next queue entry; every thread gets it. -1 when empty.
__device__ int next_pair(const int* idx, int n_idx, int* queue, int* slot)
{
    if (threadIdx.x == 0) *slot = atomicAdd(queue, 1);
    __syncthreads();
    int q = *slot;
    __syncthreads();
    return q < n_idx ? idx[q] : -1;
}

// Store the result of one pair (thread 0).
template <bool CIGAR>
__device__ void finish_pair(int pair, int s, int ovf, u32 w, u32 p, const u64* pool,
                            int* scores, int* status, u32* ops, const i64* ops_off, int* n_ops)
{
    if (ovf) {
        status[pair] = ST_OVERFLOW;
        return;
    }
    if (CIGAR) {
        i64 a = ops_off[pair];
        int count = bt_store(w, p, pool, ops + a, ops_off[pair + 1] - a);
        if (count < 0) {
            status[pair] = ST_OVERFLOW;
            return;
        }
        n_ops[pair] = count;
    }
    scores[pair] = s;
    status[pair] = 0;
}

// Copy a packed sequence (and its spare word) to shared memory.
__device__ void load_words(const u32* src, i64 base, int len, u32* dst)
{
    int nw = (len + 15) / 16 + 1;
    for (int i = threadIdx.x; i < nw; i += blockDim.x) dst[i] = src[base + i];
}

// Read pair `pair`'s lengths and word offsets into pi, and stage its sequences in
// shared memory (seq_cap > 0 words per side); the returned words, pi.pw and pi.tw
// then address the copy. Ends with a barrier where it stages.
__device__ const u32* stage_pair(int pair, const int* pl, const int* tl, const i64* pw, const i64* tw,
                                 const u32* words, PairInfo& pi, u32* sseq, int seq_cap)
{
    pi.n = pl[pair];
    pi.m = tl[pair];
    pi.pw = pw[pair];
    pi.tw = tw[pair];
    if (seq_cap <= 0) return words;
    load_words(words, pi.pw, pi.n, sseq);
    load_words(words, pi.tw, pi.m, sseq + seq_cap);
    pi.pw = 0;
    pi.tw = seq_cap;
    __syncthreads();
    return sseq;
}

// ---------------------------------------------------------------- gap-affine

// One wavefront of the ring: its rows for M, I and D, and its diagonal range
// (lo > hi for a negative score or an empty wavefront). M keeps the last
// RM = max(x, o+e) + 1 scores; I and D are only read back e scores later, so
// they keep RID = e + 1.
struct Src {
    int m, i, d, lo, hi;
};

__device__ __forceinline__ Src source(const int* slo, const int* shi, int RM, int RID, int t)
{
    Src q;
    q.m = 0;
    q.i = RM;
    q.d = RM + RID;
    q.lo = 1;
    q.hi = 0;
    if (t >= 0) {
        int r = t % RM;
        q.m = r;
        q.i = RM + t % RID;
        q.d = RM + RID + t % RID;
        q.lo = slo[r];
        q.hi = shi[r];
    }
    return q;
}

struct AffineRing {
    int* off;
    u32* bw;
    u32* bp;
    int W, K;

    __device__ __forceinline__ i64 at(int row, int k) const { return (i64)row * W + (k + K); }
    __device__ __forceinline__ int get(int row, const Src& q, int k) const
    {
        if (k < q.lo || k > q.hi) return WFA_NULL;
        return off[at(row, k)];
    }
};

// Diagonal range of wavefront s from its sources; lo > hi when empty.
__device__ __forceinline__ void affine_range(const int* slo, const int* shi, int R, int s,
                                             int x, int o, int e, int n, int m, int& lo, int& hi)
{
    lo = 1 << 30;
    hi = -(1 << 30);
    int src[3] = {s - x, s - o - e, s - e};
    for (int j = 0; j < 3; ++j) {
        int t = src[j];
        if (t < 0) continue;
        int r = t % R;
        if (slo[r] > shi[r]) continue;
        int grow = j == 0 ? 0 : 1;
        lo = min(lo, slo[r] - grow);
        hi = max(hi, shi[r] + grow);
    }
    lo = max(lo, -n);
    hi = min(hi, m);
    if (lo > hi) { lo = 1; hi = 0; }
}

// The gap-affine cell rule, shared by both backtrace designs: the offsets of
// M, I and D on diagonal k of score s from the sources, M's source (msrc: 0
// mismatch, 1 I, 2 D) and whether I and D extend a gap.
struct AffineCell {
    int mv, iv, dv, msrc;
    bool iext, dext;
};

__device__ __forceinline__ AffineCell affine_values(const AffineRing& rg, const u32* words, const PairInfo& pi,
                                                    const Src& soe, const Src& se, const Src& sx, int k)
{
    const int n = pi.n, m = pi.m;
    int io = bump(rg.get(soe.m, soe, k - 1));
    int ie = bump(rg.get(se.i, se, k - 1));
    bool iext = ie >= io;
    int iv = iext ? ie : io;
    if (iv > m || iv < 0) iv = WFA_NULL;
    int dop = rg.get(soe.m, soe, k + 1);
    int dex = rg.get(se.d, se, k + 1);
    bool dext = dex >= dop;
    int dv = dext ? dex : dop;
    if (dv < 0 || dv - k > n) dv = WFA_NULL;
    int xv = mismatch_cand(rg.get(sx.m, sx, k), k, n, m);
    int msrc;
    int mv = pick3(xv, iv, dv, msrc);
    if (mv < 0) {
        mv = WFA_NULL;
    } else {
        mv = wfa_extend(words, pi.pw, n, pi.tw, m, mv, k);
    }
    AffineCell c;
    c.mv = mv; c.iv = iv; c.dv = dv; c.msrc = msrc; c.iext = iext; c.dext = dext;
    return c;
}

template <bool CIGAR>
__device__ void affine_cell(const AffineRing& rg, const u32* words, const PairInfo& pi,
                            const Src& cur, const Src& soe, const Src& se, const Src& sx, int k, int kend,
                            u64* pool, int pool_cap, int* pool_count, int& ovf, int& found)
{
    const int m = pi.m;
    const AffineCell cv = affine_values(rg, words, pi, soe, se, sx, k);
    const int mv = cv.mv, iv = cv.iv, dv = cv.dv, msrc = cv.msrc;
    const bool iext = cv.iext, dext = cv.dext;
    i64 cm = rg.at(cur.m, k), ci = rg.at(cur.i, k), cd = rg.at(cur.d, k);
    rg.off[cm] = mv;
    rg.off[ci] = iv;
    rg.off[cd] = dv;
    if (k == kend && mv == m) found = 1;
    if (!CIGAR) return;
    u32 iw = 1u, ip = BT_NONE, dw = 1u, dp = BT_NONE;
    if (iv >= 0) {
        i64 c = iext ? rg.at(se.i, k - 1) : rg.at(soe.m, k - 1);
        iw = rg.bw[c];
        ip = rg.bp[c];
        bt_push(iw, ip, OP_I, pool, pool_cap, pool_count, ovf);
        rg.bw[ci] = iw;
        rg.bp[ci] = ip;
    }
    if (dv >= 0) {
        i64 c = dext ? rg.at(se.d, k + 1) : rg.at(soe.m, k + 1);
        dw = rg.bw[c];
        dp = rg.bp[c];
        bt_push(dw, dp, OP_D, pool, pool_cap, pool_count, ovf);
        rg.bw[cd] = dw;
        rg.bp[cd] = dp;
    }
    if (mv >= 0) {
        u32 mw, mp;
        if (msrc == 0) {
            i64 c = rg.at(sx.m, k);
            mw = rg.bw[c];
            mp = rg.bp[c];
            bt_push(mw, mp, OP_X, pool, pool_cap, pool_count, ovf);
        } else {
            mw = msrc == 1 ? iw : dw;
            mp = msrc == 1 ? ip : dp;
            bt_push(mw, mp, OP_C, pool, pool_cap, pool_count, ovf);
        }
        rg.bw[cm] = mw;
        rg.bp[cm] = mp;
    }
}

template <bool CIGAR>
__device__ void affine_kernel(const u32* words, const i64* pw, const int* pl, const i64* tw,
                              const int* tl, const int* idx, int n_idx, int* queue,
                              int x, int o, int e, int K, int max_score,
                              int* wf_off, u32* wf_bw, u32* wf_bp, u64* pool, int pool_cap,
                              int* scores, int* status, u32* ops, const i64* ops_off, int* n_ops,
                              int seq_cap)
{
    extern __shared__ int wfa_smem[];
    __shared__ int sh_slot, sh_pool, sh_ovf;
    const int R = max(x, o + e) + 1;  // M ring
    const int RID = e + 1;            // I and D rings
    const int W = 2 * K + 1;
    int* slo = wfa_smem;
    int* shi = wfa_smem + R;
    const i64 span = (i64)(R + 2 * RID) * W;
    AffineRing rg;
    rg.off = wf_off + (i64)blockIdx.x * span;
    rg.bw = CIGAR ? wf_bw + (i64)blockIdx.x * span : 0;
    rg.bp = CIGAR ? wf_bp + (i64)blockIdx.x * span : 0;
    rg.W = W;
    rg.K = K;
    u64* mypool = CIGAR ? pool + (i64)blockIdx.x * pool_cap : 0;
    for (;;) {
        int pair = next_pair(idx, n_idx, queue, &sh_slot);
        if (pair < 0) break;
        PairInfo pi;
        const u32* seqw = stage_pair(pair, pl, tl, pw, tw, words, pi, (u32*)(wfa_smem + 2 * R), seq_cap);
        const int kend = pi.m - pi.n;
        int ovf = (kend < -K || kend > K) ? 1 : 0;
        int found = 0;
        if (threadIdx.x == 0) {
            sh_pool = 0;
            sh_ovf = 0;
            for (int r = 1; r < R; ++r) { slo[r] = 1; shi[r] = 0; }
            slo[0] = 0;
            shi[0] = 0;
        }
        if (threadIdx.x == 0 && !ovf) {
            int h0 = wfa_extend(seqw, pi.pw, pi.n, pi.tw, pi.m, 0, 0);
            rg.off[rg.at(0, 0)] = h0;            // M, score 0
            rg.off[rg.at(R, 0)] = WFA_NULL;      // I, score 0
            rg.off[rg.at(R + RID, 0)] = WFA_NULL; // D, score 0
            if (CIGAR) {
                rg.bw[rg.at(0, 0)] = 1u;
                rg.bp[rg.at(0, 0)] = BT_NONE;
            }
            if (kend == 0 && h0 == pi.m) found = 1;
        }
        int s = 0;
        int stop = __syncthreads_or(found || ovf);
        while (!stop) {
            ++s;
            int lo, hi;
            affine_range(slo, shi, R, s, x, o, e, pi.n, pi.m, lo, hi);
            if (s > max_score || lo < -K || hi > K) {  // same in every thread
                ovf = 1;
                break;
            }
            const Src soe = source(slo, shi, R, RID, s - o - e);
            const Src se = source(slo, shi, R, RID, s - e);
            const Src sx = source(slo, shi, R, RID, s - x);
            const Src cur = source(slo, shi, R, RID, s);  // rows only
            for (int k = lo + (int)threadIdx.x; k <= hi; k += blockDim.x) {
                affine_cell<CIGAR>(rg, seqw, pi, cur, soe, se, sx, k, kend,
                                   mypool, pool_cap, &sh_pool, ovf, found);
            }
            if (ovf) sh_ovf = 1;
            if (threadIdx.x == 0) {
                slo[s % R] = lo;
                shi[s % R] = hi;
            }
            stop = __syncthreads_or(found || ovf);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int bad = ovf || sh_ovf;
            u32 w = 1u, p = BT_NONE;
            if (CIGAR && !bad) {
                i64 c = rg.at(s % R, kend);
                w = rg.bw[c];
                p = rg.bp[c];
            }
            finish_pair<CIGAR>(pair, s, bad, w, p, mypool, scores, status, ops, ops_off, n_ops);
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------- gap-affine, packed backtrace
//
// cigar_mode "packed": no op chains travel with the cells. Each cell of
// wavefront s leaves 4 bits in the block's area `bt` (32-bit words):
//   bits 0-1  M's source (0 X, 1 I, 2 D, as pick3 gives it),
//   bit 2     I extends a gap (1) or opens one (0),
//   bit 3     D likewise.
// Thirty-two consecutive diagonals lo+32g .. lo+32g+31 form group g: four
// words, word b holding bit b of the 32 cells (one __ballot_sync per bit;
// lanes 0-3 store them, 16 bytes). The groups of score s follow each other
// from word base[s] (a multiple of 4), scores in increasing order from word 0.
// The header (lo[s], base[s]) of score s >= 1 is at bt[cap-2s], bt[cap-2s+1]:
// headers grow down from the top while groups grow up; a score whose groups
// would meet the headers overflows the pair (status 1, the launcher retries).
// So a cell costs its offsets (as in score-only mode) plus half a byte.
// At the end warp 0 walks back from M[s, m-n], reading one 16-byte group per
// step, and writes the op list the chain mode would have built (last op first,
// 16 per word), so wfa_replay and the CIGAR are the same in both modes.
// tests/wfa_packed_model.py is a CPU model of this layout and walk.

#define PK_WINDOW 64  // headers staged in shared memory per refill of the walk

struct alignas(16) PkGroup {  // the four bit planes of 32 diagonals
    u32 src0, src1, iext, dext;
};
struct alignas(8) PkHeader {  // where score s lives in the area
    u32 lo, base;
};

// One gap-affine cell (the rules of affine_cell); returns its 4 backtrace bits.
__device__ __forceinline__ u32 affine_cell_packed(const AffineRing& rg, const u32* words,
                                                  const PairInfo& pi, const Src& cur,
                                                  const Src& soe, const Src& se, const Src& sx,
                                                  int k, int kend, int& found)
{
    const int m = pi.m;
    const AffineCell cv = affine_values(rg, words, pi, soe, se, sx, k);
    const int mv = cv.mv, iv = cv.iv, dv = cv.dv, msrc = cv.msrc;
    const bool iext = cv.iext, dext = cv.dext;
    rg.off[rg.at(cur.m, k)] = mv;
    rg.off[rg.at(cur.i, k)] = iv;
    rg.off[rg.at(cur.d, k)] = dv;
    if (k == kend && mv == m) found = 1;
    return (u32)msrc | ((u32)iext << 2) | ((u32)dext << 3);
}

// Warp 0 (all 32 lanes, in step): walk back from M at (s, k) through the
// area `bt` of `cap` words; store the ops in out (last op first, 16 per word,
// lane 0 writes). `hdr` is 2*PK_WINDOW ints of shared memory. Returns the op
// count, or -1 when out (out_cap words) is too small or the walk leaves the
// area (neither happens for a consistent area; the pair is then redone).
__device__ __noinline__ int packed_walk(const u32* bt, i64 cap, int s, int k, int x, int o, int e,
                           u32* out, i64 out_cap, int* hdr)
{
    const int lane = threadIdx.x & 31;
    int state = 0;  // 0 M, 1 I, 2 D
    int count = 0;
    int win = 1 << 30;  // hdr holds scores win .. win+PK_WINDOW-1
    u32 acc = 0;
    while (s > 0 || state != 0) {
        if (s <= 0) return -1;
        if (s < win) {
            __syncwarp();
            win = max(1, s - PK_WINDOW + 1);
            for (int j = lane; j < PK_WINDOW && win + j <= s; j += 32) {
                const PkHeader h = *(const PkHeader*)(bt + cap - 2 * (i64)(win + j));
                hdr[2 * j] = (int)h.lo;
                hdr[2 * j + 1] = (int)h.base;
            }
            __syncwarp();
        }
        const int p = k - hdr[2 * (s - win)];
        if (p < 0) return -1;
        const PkGroup g = *(const PkGroup*)(bt + (u32)hdr[2 * (s - win) + 1] + 4 * (i64)(p >> 5));
        const int b = p & 31;
        u32 op;
        if (state == 0) {
            const u32 src = ((g.src0 >> b) & 1u) | (((g.src1 >> b) & 1u) << 1);
            if (src == 0) {
                op = OP_X;
                s -= x;
            } else if (src == 3) {
                return -1;
            } else {
                op = OP_C;  // M came from I or D of the same cell
                state = (int)src;
            }
        } else {
            const bool ext = ((state == 1 ? g.iext : g.dext) >> b) & 1u;
            op = state == 1 ? OP_I : OP_D;
            k += state == 1 ? -1 : 1;
            if (ext) {
                s -= e;
            } else {
                s -= o + e;
                state = 0;
            }
        }
        acc |= op << ((count & 15) << 1);
        ++count;
        if ((count & 15) == 0) {
            if ((count >> 4) > out_cap) return -1;
            if (lane == 0) out[(count >> 4) - 1] = acc;
            acc = 0;
        }
    }
    if (count & 15) {
        if ((count >> 4) + 1 > out_cap) return -1;
        if (lane == 0) out[count >> 4] = acc;
    }
    return count;
}

// The gap-affine kernel with the packed backtrace. Block layout and loop as
// affine_kernel; blockDim.x must be a multiple of 32 (the cell loop runs
// whole warps, so that each warp's 32 diagonals make one group).
__device__ void affine_packed_kernel(const u32* words, const i64* pw, const int* pl,
                                     const i64* tw, const int* tl, const int* idx, int n_idx,
                                     int* queue, int x, int o, int e, int K, int max_score,
                                     int* wf_off, u32* bt_area, int bt_cap, int* scores,
                                     int* status, u32* ops, const i64* ops_off, int* n_ops,
                                     int seq_cap)
{
    extern __shared__ int wfa_smem[];
    __shared__ int sh_slot;
    __shared__ int hdr[2 * PK_WINDOW];
    const int R = max(x, o + e) + 1;  // M ring
    const int RID = e + 1;            // I and D rings
    const int W = 2 * K + 1;
    int* slo = wfa_smem;
    int* shi = wfa_smem + R;
    const i64 span = (i64)(R + 2 * RID) * W;
    AffineRing rg;
    rg.off = wf_off + (i64)blockIdx.x * span;
    rg.bw = 0;
    rg.bp = 0;
    rg.W = W;
    rg.K = K;
    const i64 cap = bt_cap;
    u32* bt = bt_area + (i64)blockIdx.x * cap;
    const int lane = threadIdx.x & 31;
    const int warp_first = threadIdx.x & ~31;
    for (;;) {
        int pair = next_pair(idx, n_idx, queue, &sh_slot);
        if (pair < 0) break;
        PairInfo pi;
        const u32* seqw = stage_pair(pair, pl, tl, pw, tw, words, pi, (u32*)(wfa_smem + 2 * R), seq_cap);
        const int kend = pi.m - pi.n;
        int ovf = (kend < -K || kend > K) ? 1 : 0;
        int found = 0;
        if (threadIdx.x == 0) {
            for (int r = 1; r < R; ++r) { slo[r] = 1; shi[r] = 0; }
            slo[0] = 0;
            shi[0] = 0;
        }
        if (threadIdx.x == 0 && !ovf) {
            int h0 = wfa_extend(seqw, pi.pw, pi.n, pi.tw, pi.m, 0, 0);
            rg.off[rg.at(0, 0)] = h0;
            rg.off[rg.at(R, 0)] = WFA_NULL;
            rg.off[rg.at(R + RID, 0)] = WFA_NULL;
            if (kend == 0 && h0 == pi.m) found = 1;
        }
        int s = 0;
        i64 used = 0;  // area words taken by groups (the same in every thread)
        int stop = __syncthreads_or(found || ovf);
        while (!stop) {
            ++s;
            int lo, hi;
            affine_range(slo, shi, R, s, x, o, e, pi.n, pi.m, lo, hi);
            const i64 groups = lo <= hi ? ((hi - lo) >> 5) + 1 : 0;
            if (s > max_score || lo < -K || hi > K || used + 4 * groups > cap - 2 * (i64)s) {
                ovf = 1;  // same in every thread
                break;
            }
            u32* seg = bt + used;
            if (threadIdx.x == 0) {
                bt[cap - 2 * (i64)s] = (u32)lo;
                bt[cap - 2 * (i64)s + 1] = (u32)used;
            }
            used += 4 * groups;
            const Src soe = source(slo, shi, R, RID, s - o - e);
            const Src se = source(slo, shi, R, RID, s - e);
            const Src sx = source(slo, shi, R, RID, s - x);
            const Src cur = source(slo, shi, R, RID, s);  // rows only
            for (int k0 = lo + warp_first; k0 <= hi; k0 += blockDim.x) {  // whole warps
                const int k = k0 + lane;
                u32 code = 0;
                if (k <= hi) code = affine_cell_packed(rg, seqw, pi, cur, soe, se, sx, k, kend, found);
                const u32 b0 = __ballot_sync(0xFFFFFFFFu, code & 1u);
                const u32 b1 = __ballot_sync(0xFFFFFFFFu, code & 2u);
                const u32 b2 = __ballot_sync(0xFFFFFFFFu, code & 4u);
                const u32 b3 = __ballot_sync(0xFFFFFFFFu, code & 8u);
                if (lane < 4) {
                    seg[4 * (i64)((k0 - lo) >> 5) + lane] =
                        lane == 0 ? b0 : (lane == 1 ? b1 : (lane == 2 ? b2 : b3));
                }
            }
            if (threadIdx.x == 0) {
                slo[s % R] = lo;
                shi[s % R] = hi;
            }
            stop = __syncthreads_or(found || ovf);
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            int count = 0;
            if (!ovf) {
                const i64 a = ops_off[pair];
                count = packed_walk(bt, cap, s, kend, x, o, e, ops + a, ops_off[pair + 1] - a, hdr);
            }
            if (threadIdx.x == 0) {
                if (ovf || count < 0) {
                    status[pair] = ST_OVERFLOW;
                } else {
                    n_ops[pair] = count;
                    scores[pair] = s;
                    status[pair] = 0;
                }
            }
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------- edit distance

struct EditRing {
    int* off;
    u32* bw;
    u32* bp;
    const int* lo;
    const int* hi;
    int W, K;

    __device__ __forceinline__ int at(int s, int k) const { return (s & 1) * W + (k + K); }
    __device__ __forceinline__ int get(int s, int k) const
    {
        int r = s & 1;
        if (k < lo[r] || k > hi[r]) return WFA_NULL;
        return off[at(s, k)];
    }
};

template <bool CIGAR>
__device__ void edit_cell(const EditRing& rg, const u32* words, const PairInfo& pi, int s, int k,
                          int kend, u64* pool, int pool_cap, int* pool_count, int& ovf, int& found)
{
    const int n = pi.n, m = pi.m;
    int xs = rg.get(s - 1, k);
    int is = rg.get(s - 1, k - 1);
    int ds = rg.get(s - 1, k + 1);
    int xv = mismatch_cand(xs, k, n, m);
    int iv = bump(is);
    if (iv > m) iv = WFA_NULL;
    int dv = ds;
    if (dv - k > n) dv = WFA_NULL;
    int src;
    int mv = pick3(xv, iv, dv, src);
    if (mv < 0) {
        mv = WFA_NULL;
    } else {
        mv = wfa_extend(words, pi.pw, n, pi.tw, m, mv, k);
    }
    int c = rg.at(s, k);
    rg.off[c] = mv;
    if (k == kend && mv == m) found = 1;
    if (!CIGAR || mv < 0) return;
    int from = rg.at(s - 1, src == 0 ? k : (src == 1 ? k - 1 : k + 1));
    u32 w = rg.bw[from], p = rg.bp[from];
    bt_push(w, p, (u32)src, pool, pool_cap, pool_count, ovf);
    rg.bw[c] = w;
    rg.bp[c] = p;
}

template <bool CIGAR, bool SHARED>
__device__ void edit_kernel(const u32* words, const i64* pw, const int* pl, const i64* tw,
                            const int* tl, const int* idx, int n_idx, int* queue,
                            int K, int max_score, int* wf_off, u32* wf_bw, u32* wf_bp,
                            u64* pool, int pool_cap, int* scores, int* status,
                            u32* ops, const i64* ops_off, int* n_ops, int seq_cap)
{
    extern __shared__ u64 wfa_smem64[];
    __shared__ int sh_slot, sh_pool, sh_ovf;
    __shared__ int slo[2], shi[2];
    const int W = 2 * K + 1;
    EditRing rg;
    u64* mypool;
    u32* sseq = 0;
    if (SHARED) {
        mypool = wfa_smem64;
        rg.off = (int*)(wfa_smem64 + pool_cap);
        rg.bw = (u32*)(rg.off + 2 * W);
        rg.bp = rg.bw + 2 * W;
        sseq = CIGAR ? rg.bp + 2 * W : (u32*)(rg.off + 2 * W);
    } else {
        const i64 span = 2 * (i64)W;
        rg.off = wf_off + (i64)blockIdx.x * span;
        rg.bw = CIGAR ? wf_bw + (i64)blockIdx.x * span : 0;
        rg.bp = CIGAR ? wf_bp + (i64)blockIdx.x * span : 0;
        mypool = CIGAR ? pool + (i64)blockIdx.x * pool_cap : 0;
    }
    rg.lo = slo;
    rg.hi = shi;
    rg.W = W;
    rg.K = K;
    for (;;) {
        int pair = next_pair(idx, n_idx, queue, &sh_slot);
        if (pair < 0) break;
        PairInfo pi;
        const u32* seqw = stage_pair(pair, pl, tl, pw, tw, words, pi, SHARED ? sseq : (u32*)wfa_smem64, seq_cap);
        const int kend = pi.m - pi.n;
        int ovf = (kend < -K || kend > K) ? 1 : 0;
        int found = 0;
        if (threadIdx.x == 0) {
            sh_pool = 0;
            sh_ovf = 0;
            slo[0] = 0;
            shi[0] = 0;
            slo[1] = 1;
            shi[1] = 0;
        }
        if (threadIdx.x == 0 && !ovf) {
            int h0 = wfa_extend(seqw, pi.pw, pi.n, pi.tw, pi.m, 0, 0);
            rg.off[rg.at(0, 0)] = h0;
            if (CIGAR) {
                rg.bw[rg.at(0, 0)] = 1u;
                rg.bp[rg.at(0, 0)] = BT_NONE;
            }
            if (kend == 0 && h0 == pi.m) found = 1;
        }
        int s = 0;
        int stop = __syncthreads_or(found || ovf);
        while (!stop) {
            ++s;
            int lo = max(slo[(s - 1) & 1] - 1, -pi.n);
            int hi = min(shi[(s - 1) & 1] + 1, pi.m);
            if (s > max_score || lo < -K || hi > K) {
                ovf = 1;
                break;
            }
            for (int k = lo + (int)threadIdx.x; k <= hi; k += blockDim.x) {
                edit_cell<CIGAR>(rg, seqw, pi, s, k, kend, mypool, pool_cap, &sh_pool, ovf, found);
            }
            if (ovf) sh_ovf = 1;
            if (threadIdx.x == 0) {
                slo[s & 1] = lo;
                shi[s & 1] = hi;
            }
            stop = __syncthreads_or(found || ovf);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int bad = ovf || sh_ovf;
            u32 w = 1u, p = BT_NONE;
            if (CIGAR && !bad) {
                int c = rg.at(s, kend);
                w = rg.bw[c];
                p = rg.bp[c];
            }
            finish_pair<CIGAR>(pair, s, bad, w, p, mypool, scores, status, ops, ops_off, n_ops);
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------- entry points

#define WFA_ARGS                                                                          \
    const u32 *words, const i64 *pw, const int *pl, const i64 *tw, const int *tl,         \
        const int *idx, int n_idx, int *queue, int x, int o, int e, int K, int max_score, \
        int *wf_off, u32 *wf_bw, u32 *wf_bp, u64 *pool, int pool_cap, int *scores,        \
        int *status, u32 *ops, const i64 *ops_off, int *n_ops, int seq_cap

// The arguments of WFA_ARGS the kernels below take, in their order (the edit kernels take no penalties).
#define WFA_HEAD words, pw, pl, tw, tl, idx, n_idx, queue
#define WFA_TAIL K, max_score, wf_off, wf_bw, wf_bp, pool, pool_cap, scores, status, ops, ops_off, n_ops, seq_cap

extern "C" __global__ void wfa_affine_score(WFA_ARGS) { affine_kernel<false>(WFA_HEAD, x, o, e, WFA_TAIL); }

extern "C" __global__ void wfa_affine_cigar(WFA_ARGS) { affine_kernel<true>(WFA_HEAD, x, o, e, WFA_TAIL); }

// Gap-affine with the packed backtrace: bt_area holds bt_cap words per block
// (a multiple of 4); blockDim.x a multiple of 32.
extern "C" __global__ void wfa_affine_packed(const u32* words, const i64* pw, const int* pl,
                                             const i64* tw, const int* tl, const int* idx,
                                             int n_idx, int* queue, int x, int o, int e, int K,
                                             int max_score, int* wf_off, u32* bt_area, int bt_cap,
                                             int* scores, int* status, u32* ops,
                                             const i64* ops_off, int* n_ops, int seq_cap)
{
    affine_packed_kernel(words, pw, pl, tw, tl, idx, n_idx, queue, x, o, e, K, max_score, wf_off,
                         bt_area, bt_cap, scores, status, ops, ops_off, n_ops, seq_cap);
}

extern "C" __global__ void wfa_edit_score(WFA_ARGS) { edit_kernel<false, false>(WFA_HEAD, WFA_TAIL); }

extern "C" __global__ void wfa_edit_cigar(WFA_ARGS) { edit_kernel<true, false>(WFA_HEAD, WFA_TAIL); }

extern "C" __global__ void ewfa_edit_score(WFA_ARGS) { edit_kernel<false, true>(WFA_HEAD, WFA_TAIL); }

extern "C" __global__ void ewfa_edit_cigar(WFA_ARGS) { edit_kernel<true, true>(WFA_HEAD, WFA_TAIL); }

// Append `count` copies of letter c.
__device__ __forceinline__ int emit(unsigned char* out, int pos, unsigned char c, int count)
{
    for (int j = 0; j < count; ++j) out[pos + j] = c;
    return pos + count;
}

// One thread per pair: op list (last op first) -> CIGAR letters in cig[cig_off[i]:].
extern "C" __global__ void wfa_replay(const u32* words, const i64* pw, const int* pl,
                                      const i64* tw, const int* tl, int n_pairs,
                                      const u32* ops, const i64* ops_off, const int* n_ops,
                                      int edit, unsigned char* cig, const i64* cig_off,
                                      int* cig_len, int* status)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_pairs) return;
    if (status[i] != 0) {
        cig_len[i] = 0;
        return;
    }
    const int n = pl[i], m = tl[i];
    const i64 a = pw[i], b = tw[i];
    const u32* op = ops + ops_off[i];
    unsigned char* out = cig + cig_off[i];
    int h = wfa_extend(words, a, n, b, m, 0, 0);
    int v = h;
    int pos = emit(out, 0, '=', h);
    for (int j = n_ops[i] - 1; j >= 0; --j) {
        u32 c = (op[j >> 4] >> ((j & 15) << 1)) & 3u;
        bool ext = edit != 0;
        if (c == OP_X) {
            if (h >= m || v >= n) break;
            out[pos++] = 'X';
            ++h;
            ++v;
            ext = true;
        } else if (c == OP_I) {
            if (h >= m) break;
            out[pos++] = 'I';
            ++h;
        } else if (c == OP_D) {
            if (v >= n) break;
            out[pos++] = 'D';
            ++v;
        } else {
            ext = true;
        }
        if (ext) {
            int h2 = wfa_extend(words, a, n, b, m, h, h - v);
            pos = emit(out, pos, '=', h2 - h);
            v += h2 - h;
            h = h2;
        }
    }
    if (h != m || v != n) status[i] = ST_BAD_REPLAY;
    cig_len[i] = pos;
}

// One thread per pair: dst[dst_off[i]:+len[i]] = src[src_off[i]:+len[i]].
extern "C" __global__ void wfa_compact(const unsigned char* src, const i64* src_off,
                                       const int* len, const i64* dst_off, unsigned char* dst,
                                       int n_pairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_pairs) return;
    const unsigned char* a = src + src_off[i];
    unsigned char* b = dst + dst_off[i];
    for (int j = 0; j < len[i]; ++j) b[j] = a[j];
}
