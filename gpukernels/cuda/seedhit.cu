// SeedHit kernels: twins of cpu/seedhit.py. A b-mer is L = bits/2 letters;
// words with N or a separator never count. Bit tables live in shared memory
// (2^bits bits: at most 8 KiB each).

extern "C" {

__device__ __forceinline__ int word_at(const unsigned char* codes, long long p, int L)
{
    int key = 0;
    for (int s = 0; s < L; ++s) {
        unsigned char c = codes[p + s];
        if (c > 3) return -1;
        key = (key << 2) | c;
    }
    return key;
}

// Letters packed for the pair kernel: packed[i] holds letters 16i..16i+15,
// letter 16i+k in bits 2k..2k+1 (its code & 3); invalid[j] has bit k set when
// letter 32j+k is N, a separator or past the end. Thread j packs letters
// 32j..32j+31 (two 16-byte reads; s is 16-byte aligned); both arrays carry
// one word of padding, so a 32-letter read from any letter below n stays
// inside them.
__device__ __forceinline__ void pack4(unsigned int x, int i, unsigned int* p, unsigned int& inv)
{
    unsigned int m = __vcmpgtu4(x, 0x03030303u);               // 0xff in each byte holding a code > 3
    inv |= (((m >> 7) & 1u) | ((m >> 14) & 2u) | ((m >> 21) & 4u) | ((m >> 28) & 8u)) << (4 * i);
    unsigned int v = x & 0x03030303u;
    v |= v >> 6;                                               // letters 0,1 in bits 0-3; 2,3 in bits 16-19
    p[i >> 2] |= ((v & 0xfu) | ((v >> 12) & 0xf0u)) << (8 * (i & 3));
}

__global__ void pack_codes(const unsigned char* s, long long n, unsigned int* packed, unsigned int* invalid,
                           long long nwords)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nwords) return;
    long long a = 32 * j;
    unsigned int p[2] = {0u, 0u}, inv = 0u;
    if (a + 32 <= n) {
        const uint4* v = reinterpret_cast<const uint4*>(s + a);
        uint4 x = __ldg(v), y = __ldg(v + 1);
        pack4(x.x, 0, p, inv); pack4(x.y, 1, p, inv); pack4(x.z, 2, p, inv); pack4(x.w, 3, p, inv);
        pack4(y.x, 4, p, inv); pack4(y.y, 5, p, inv); pack4(y.z, 6, p, inv); pack4(y.w, 7, p, inv);
    } else {
        for (int k = 0; k < 32; ++k) {
            unsigned int c = a + k < n ? __ldg(s + a + k) : 4u;
            inv |= (unsigned int)(c > 3) << k;
            p[k >> 4] |= (c & 3u) << (2 * (k & 15));
        }
    }
    packed[2 * j] = p[0];
    packed[2 * j + 1] = p[1];
    invalid[j] = inv;
}

}   // extern "C": the helpers below are C++

// One warp per pair, its own bit table in shared memory (2^bits bits). Lane j
// takes the word starts lo + 8j .. lo + 8j + 7 of each 256-start stretch: two
// packed words and two invalid words give all eight keys. A key is the
// word's letters in packed order: any one-to-one key gives the same counts as
// the CPU twin's.
#define SH_SPAN 8
#define SH_STRETCH (32 * SH_SPAN)
#define SH_NONE 0xffffffffu

struct LaneWords { unsigned int p0, p1, i0, i1; };
struct PairSpan { long long tlo, thi, qlo, qhi; };

__device__ __forceinline__ LaneWords fetch_words(const unsigned int* packed, const unsigned int* invalid, long long base)
{
    return {__ldg(packed + (base >> 4)), __ldg(packed + (base >> 4) + 1),
            __ldg(invalid + (base >> 5)), __ldg(invalid + (base >> 5) + 1)};
}

// Keys of the word starts base .. base+7 of a sequence ending at hi (SH_NONE:
// the word holds N or a separator, or runs past hi). base <= hi - L. The 15
// letters needed fit 32-bit words: letters in b (2 bits each), bad starts in
// bad (bit k: one of the letters k .. k+L-1 is invalid).
__device__ __forceinline__ void decode_keys(LaneWords w, long long base, long long hi, int L, unsigned int* keys)
{
    unsigned int b = (unsigned int)(((unsigned long long)w.p0 | ((unsigned long long)w.p1 << 32)) >> (2 * (base & 15)));
    unsigned int inv = (unsigned int)(((unsigned long long)w.i0 | ((unsigned long long)w.i1 << 32)) >> (base & 31));
    long long have = hi - base;                                // letters of this sequence from base
    if (have < 32) inv |= ~0u << have;
    unsigned int bad = inv;
    for (int k = 1; k < L; ++k) bad |= inv >> k;
    unsigned int kmask = (1u << (2 * L)) - 1u;
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k)
        keys[k] = (bad >> k) & 1u ? SH_NONE : (b >> (2 * k)) & kmask;
}

enum { SH_SET = 0, SH_COUNT = 1, SH_UNSET = 2 };

template <int OP>
__device__ __forceinline__ unsigned int apply_keys(const unsigned int* keys, unsigned int* table)
{
    unsigned int cnt = 0;
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k) {
        unsigned int key = keys[k];
        if (key == SH_NONE) continue;
        if (OP == SH_SET) atomicOr(&table[key >> 5], 1u << (key & 31));
        else if (OP == SH_COUNT) cnt += (table[key >> 5] >> (key & 31)) & 1u;
        else table[key >> 5] = 0u;
    }
    return cnt;
}

template <int OP>
__device__ __forceinline__ unsigned int warp_walk(const unsigned int* packed, const unsigned int* invalid, long long lo,
                                                  long long hi, int L, unsigned int* table, int lane)
{
    unsigned int cnt = 0, keys[SH_SPAN];
    for (long long base = lo + lane * SH_SPAN; base <= hi - L; base += SH_STRETCH) {
        decode_keys(fetch_words(packed, invalid, base), base, hi, L, keys);
        cnt += apply_keys<OP>(keys, table);
    }
    return cnt;
}

__device__ __forceinline__ PairSpan pair_span(const long long* t_off, const long long* q_off, long long i, long long n)
{
    if (i >= n) return {0, 0, 0, 0};
    return {t_off[i], t_off[i + 1], q_off[i], q_off[i + 1]};
}

// Both sides one stretch: every word start within the first 256.
__device__ __forceinline__ bool short_pair(PairSpan s, int L)
{
    return s.thi - s.tlo - L < SH_STRETCH && s.qhi - s.qlo - L < SH_STRETCH;
}

// The lane's words of both sides of a short pair (zeros where the lane has no
// word start, and for any other pair).
__device__ __forceinline__ void fetch_pair(const unsigned int* tp, const unsigned int* tinv, const unsigned int* qp,
                                           const unsigned int* qinv, PairSpan s, int L, long long at, LaneWords& tw,
                                           LaneWords& qw)
{
    tw = qw = {0u, 0u, 0u, 0u};
    if (!short_pair(s, L)) return;
    if (s.tlo + at <= s.thi - L) tw = fetch_words(tp, tinv, s.tlo + at);
    if (s.qlo + at <= s.qhi - L) qw = fetch_words(qp, qinv, s.qlo + at);
}

// decode_keys of the lane's word starts in [lo, hi), all SH_NONE when it has none.
__device__ __forceinline__ void lane_keys(LaneWords w, long long lo, long long hi, int L, long long at,
                                          unsigned int* keys)
{
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k) keys[k] = SH_NONE;
    if (lo + at <= hi - L) decode_keys(w, lo + at, hi, L, keys);
}

extern "C" {

// Pair i: the count of query positions of q[q_off[i]:q_off[i+1]] whose b-mer
// occurs in t[t_off[i]:t_off[i+1]] (t and q as pack_codes left them). Tables
// are cleared once per warp, then after each pair by unsetting the target's
// words. Short pairs are pipelined: the words of the next pair are read while
// this one is counted (the offsets two pairs ahead), and the target's keys
// stay in registers for the unsetting. Longer pairs walk their stretches, and
// wipe the table when that is cheaper than a walk.
__global__ void count_pairs(const unsigned int* tp, const unsigned int* tinv, const long long* t_off,
                            const unsigned int* qp, const unsigned int* qinv, const long long* q_off,
                            long long npairs, int bits, long long* out)
{
    extern __shared__ unsigned int tables[];
    int L = bits / 2, lane = threadIdx.x & 31, warp = threadIdx.x >> 5, per_block = blockDim.x >> 5;
    int words = max(1, (1 << bits) >> 5);
    unsigned int* table = tables + (long long)warp * words;
    for (int w = lane; w < words; w += 32) table[w] = 0u;
    __syncwarp();
    long long stride = (long long)gridDim.x * per_block;
    long long i = (long long)blockIdx.x * per_block + warp, at = lane * SH_SPAN;
    PairSpan cur = pair_span(t_off, q_off, i, npairs), nxt = pair_span(t_off, q_off, i + stride, npairs);
    LaneWords tw, qw;
    fetch_pair(tp, tinv, qp, qinv, cur, L, at, tw, qw);
    for (; i < npairs; i += stride) {
        PairSpan after = pair_span(t_off, q_off, i + 2 * stride, npairs);
        LaneWords ntw, nqw;
        fetch_pair(tp, tinv, qp, qinv, nxt, L, at, ntw, nqw);
        unsigned long long cnt;
        if (short_pair(cur, L)) {
            unsigned int tk[SH_SPAN], qk[SH_SPAN];
            lane_keys(tw, cur.tlo, cur.thi, L, at, tk);
            lane_keys(qw, cur.qlo, cur.qhi, L, at, qk);
            apply_keys<SH_SET>(tk, table);
            __syncwarp();
            cnt = __reduce_add_sync(0xffffffffu, apply_keys<SH_COUNT>(qk, table));   // at most 256
            __syncwarp();
            apply_keys<SH_UNSET>(tk, table);
        } else {
            warp_walk<SH_SET>(tp, tinv, cur.tlo, cur.thi, L, table, lane);
            __syncwarp();
            cnt = warp_walk<SH_COUNT>(qp, qinv, cur.qlo, cur.qhi, L, table, lane);
            __syncwarp();
            if (cur.thi - cur.tlo <= 2LL * words) warp_walk<SH_UNSET>(tp, tinv, cur.tlo, cur.thi, L, table, lane);
            else for (int w = lane; w < words; w += 32) table[w] = 0u;
            for (int o = 16; o > 0; o >>= 1) cnt += __shfl_down_sync(0xffffffffu, cnt, o);
        }
        if (lane == 0) out[i] = (long long)cnt;
        __syncwarp();
        cur = nxt; nxt = after; tw = ntw; qw = nqw;
    }
}

// Key of the word starting at each position p < n (-1: it holds N or a
// separator, or runs past the end). Read once, by every target window.
__global__ void word_keys(const unsigned char* s, long long n, int L, int* keys)
{
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) keys[p] = p + L <= n ? word_at(s, p, L) : -1;
}

// One block per target window tw (2*window letters from tw*window): for every
// query window w, count its b-mers (wholly inside the window) present in the
// target window and keep the maximum in best[w]. qkeys: word_keys of the query.
__global__ void window_counts(const unsigned char* t, long long nt, const int* qkeys, long long nq,
                              int bits, int window, long long ntw, long long* best)
{
    extern __shared__ unsigned int table[];
    int L = bits / 2;
    int words = max(1, (1 << bits) >> 5);
    long long nqw = (nq + window - 1) / window;
    for (long long tw = blockIdx.x; tw < ntw; tw += gridDim.x) {
        for (int w = threadIdx.x; w < words; w += blockDim.x) table[w] = 0;
        __syncthreads();
        long long lo = tw * (long long)window, hi = min(nt, lo + 2LL * window);
        for (long long p = lo + threadIdx.x; p + L <= hi; p += blockDim.x) {
            int key = word_at(t, p, L);
            if (key >= 0) atomicOr(&table[key >> 5], 1u << (key & 31));
        }
        __syncthreads();
        // one warp per query window: no block-wide barrier inside the loop
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
        for (long long w = warp; w < nqw; w += nwarps) {
            long long a = w * window, z = min(nq, a + window);
            unsigned long long cnt = 0;
            for (long long p = a + lane; p + L <= z; p += 32) {
                int key = __ldg(qkeys + p);
                if (key >= 0 && ((table[key >> 5] >> (key & 31)) & 1u)) ++cnt;
            }
            for (int o = 16; o > 0; o >>= 1) cnt += __shfl_down_sync(0xffffffffu, cnt, o);
            if (lane == 0 && cnt) atomicMax((unsigned long long*)&best[w], cnt);
        }
        __syncthreads();
    }
}

// One thread per hit: hits in the 3 x 3 cells around its (band, window) cell.
__global__ void neighbour_counts(const long long* band, const long long* win, long long n,
                                 const long long* ub, const long long* uw, const long long* uc, long long m,
                                 long long* out)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long tot = 0;
    for (int db = -1; db <= 1; ++db) {
        for (int dw = -1; dw <= 1; ++dw) {
            long long b = band[i] + db, w = win[i] + dw;
            long long a = 0, z = m;
            while (a < z) {
                long long mid = (a + z) >> 1;
                if (ub[mid] < b || (ub[mid] == b && uw[mid] < w)) a = mid + 1; else z = mid;
            }
            if (a < m && ub[a] == b && uw[a] == w) tot += uc[a];
        }
    }
    out[i] = tot;
}

}
