// Ungapped x-drop extension: twin of cpu/ungapped.extend_hits.
// One warp per diagonal (GPUGECKO): the warp takes the diagonal's hits in
// query order, skips those behind the diagonal's extent (binary search), and
// extends each one 32 letters at a time (prefix sums and running maxima by
// shuffles), stopping exactly where the CPU's letter-by-letter loop stops.

#define FULL 0xffffffffu
#define NEG_INF (-(1LL << 62))

__device__ __forceinline__ long long warp_incl_sum(long long v, int lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        long long u = __shfl_up_sync(FULL, v, o);
        if (lane >= o) v += u;
    }
    return v;
}

__device__ __forceinline__ long long warp_incl_max(long long v, int lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        long long u = __shfl_up_sync(FULL, v, o);
        if (lane >= o && u > v) v = u;
    }
    return v;
}

// One x-drop pass over L letters from pos, walking left (dir < 0: letters
// pos-1, pos-2, ...) or right (letters pos, pos+1, ...). Returns the best
// score; *best_k = index of the letter where it was first reached (-1: none
// above 0); *done = letters processed.
__device__ long long xdrop_pass(const unsigned char* t, const unsigned char* q, long long pos, long long diag,
                                long long L, int dir, const int* mat, long long xdrop, int lane,
                                long long* best_k, long long* done)
{
    long long run = 0, best = 0, bk = -1, processed = 0;
    for (long long c = 0; c < L; c += 32) {
        long long k = c + lane;
        bool valid = k < L;
        long long v = 0;
        if (valid) {
            long long s = dir < 0 ? pos - 1 - k : pos + k;
            v = mat[t[s + diag] * 6 + q[s]];
        }
        long long r = run + warp_incl_sum(v, lane);
        long long m = warp_incl_max(valid ? r : NEG_INF, lane);
        long long b = m > best ? m : best;
        unsigned fails = __ballot_sync(FULL, valid && r < b - xdrop);
        unsigned valids = __ballot_sync(FULL, valid);
        int last = fails ? __ffs(fails) - 1 : 31 - __clz(valids);
        long long mlast = __shfl_sync(FULL, m, last);
        if (mlast > best) {
            unsigned at = __ballot_sync(FULL, lane <= last && r == mlast);
            bk = c + __ffs(at) - 1;
            best = mlast;
        }
        run = __shfl_sync(FULL, r, last);
        processed = c + last + 1;
        if (fails) break;
    }
    *best_k = bk;
    *done = processed;
    return best;
}

extern "C" __global__ void extend_diagonals(const unsigned char* t, long long tn, const unsigned char* q,
                                            long long qn, const long long* sq, const long long* st,
                                            const long long* perm, const long long* seg, long long nseg,
                                            long long* diag_end, const int* matrix, int span, long long xdrop,
                                            long long min_score, long long* out_q0, long long* out_q1, long long* out_score,
                                            int* out_counts, unsigned char* out_ok)
{
    __shared__ int mat[36];
    for (int x = threadIdx.x; x < 36; x += blockDim.x) mat[x] = matrix[x];
    __syncthreads();
    int lane = threadIdx.x & 31;
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= nseg) return;
    long long a = seg[w], b = seg[w + 1];
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
            for (long long x = start + lane; x < end; x += 32) {
                int c = q[x];
                if (c < 4 && t[x + diag] == c) {
                    c0 += c == 0; c1 += c == 1; c2 += c == 2; c3 += c == 3;
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
