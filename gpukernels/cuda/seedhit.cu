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
// the CPU twin's. The word length L = bits / 2 is a template parameter, so a
// lane's keys cost a few shifts each and no branch.
#define SH_SPAN 8
#define SH_STRETCH (32 * SH_SPAN)

struct LaneWords { unsigned int p0, p1, i0, i1; };

// A pair: where each side starts and ends, as read (no arithmetic on a read
// value until it is used, so a read ahead never waits).
struct PairSpan {
    long long tlo, thi, qlo, qhi;
    __device__ __forceinline__ long long tlen() const { return thi - tlo; }
    __device__ __forceinline__ long long qlen() const { return qhi - qlo; }
};

// The eight keys of a lane: key k is (letters >> 2k) masked to 2L bits, and
// it counts when bit k of good is set (its L letters are all A, C, G or T
// and inside the sequence).
struct LaneKeys { unsigned int letters, good; };

__device__ __forceinline__ LaneWords fetch_words(const unsigned int* packed, const unsigned int* invalid,
                                                 unsigned long long base)
{
    unsigned int p = (unsigned int)(base >> 4), v = (unsigned int)(base >> 5);   // < 2^32 words
    return {__ldg(packed + p), __ldg(packed + p + 1), __ldg(invalid + v), __ldg(invalid + v + 1)};
}

// Bit k set when one of the bits k .. k+L-1 of inv is: doubling shifts.
template <int L>
__device__ __forceinline__ unsigned int spread_bad(unsigned int inv)
{
    int c = 1;
#pragma unroll
    for (; 2 * c <= L; c *= 2) inv |= inv >> c;
    if (c < L) inv |= inv >> (L - c);
    return inv;
}

// Keys of the word starts base .. base+7 of a sequence with have letters
// from base on; none when have < L. The 15 letters needed fit 32 bits.
template <int L>
__device__ __forceinline__ LaneKeys decode_keys(LaneWords w, unsigned long long base, int have)
{
    if (have < L) return {0u, 0u};
    unsigned int letters = __funnelshift_r(w.p0, w.p1, 2 * (int)(base & 15));
    unsigned int inv = __funnelshift_r(w.i0, w.i1, (int)(base & 31));
    if (have < 32) inv |= ~0u << have;
    return {letters, ~spread_bad<L>(inv) & ((1u << SH_SPAN) - 1u)};
}

// Shared-memory byte address of each key's table word (table: the table's
// address); a key that does not count goes to pad, a word of the lane's own
// bank beside the table. The key's bit in its word is its low 5 bits.
template <int L>
__device__ __forceinline__ void key_addrs(LaneKeys lk, unsigned int table, unsigned int pad, unsigned int* addr)
{
    constexpr unsigned int word_bytes = (((1u << (2 * L)) - 1u) >> 5) << 2;
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k)
        addr[k] = (lk.good >> k) & 1u ? table + ((lk.letters >> (2 * k + 3)) & word_bytes) : pad;
}

// The three table operations, with no branch: keys that do not count set
// bits in the lane's set pad, and read the lane's zero pad, which nothing
// sets. Inline PTX on shared addresses, so the compiler neither branches
// nor converts addresses.
__device__ __forceinline__ void set_keys(LaneKeys lk, const unsigned int* addr)
{
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k)
        asm volatile("red.shared.or.b32 [%0], %1;" :: "r"(addr[k]), "r"(__funnelshift_l(0u, 1u, lk.letters >> (2 * k)))
                     : "memory");
}

__device__ __forceinline__ unsigned int count_keys(LaneKeys lk, const unsigned int* addr)
{
    unsigned int cnt = 0;
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k) {
        unsigned int v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr[k]) : "memory");
        cnt += __funnelshift_r(v, 0u, lk.letters >> (2 * k)) & 1u;
    }
    return cnt;
}

__device__ __forceinline__ void unset_keys(const unsigned int* addr)
{
#pragma unroll
    for (int k = 0; k < SH_SPAN; ++k) asm volatile("st.shared.u32 [%0], %1;" :: "r"(addr[k]), "r"(0u) : "memory");
}

enum { SH_SET = 0, SH_COUNT = 1, SH_UNSET = 2 };

// One pass of the warp over all word starts of a side (pairs longer than a stretch).
template <int L, int OP>
__device__ __forceinline__ unsigned int warp_walk(const unsigned int* packed, const unsigned int* invalid, long long lo,
                                                  long long len, unsigned int table, unsigned int pad, int lane)
{
    unsigned int cnt = 0, addr[SH_SPAN];
    for (long long at = lane * SH_SPAN; at <= len - L; at += SH_STRETCH) {
        LaneKeys lk = decode_keys<L>(fetch_words(packed, invalid, lo + at), lo + at, (int)min(len - at, 32LL));
        key_addrs<L>(lk, table, pad, addr);
        if (OP == SH_SET) set_keys(lk, addr);
        else if (OP == SH_COUNT) cnt += count_keys(lk, addr);
        else unset_keys(addr);
    }
    return cnt;
}

__device__ __forceinline__ PairSpan pair_span(const long long* t_off, const long long* q_off, long long i, long long n)
{
    if (i >= n) return {0, 0, 0, 0};
    return {t_off[i], t_off[i + 1], q_off[i], q_off[i + 1]};
}

// Both sides one stretch: every word start within the first 256.
template <int L>
__device__ __forceinline__ bool short_pair(PairSpan s)
{
    return s.tlen() - L < SH_STRETCH && s.qlen() - L < SH_STRETCH;
}

// The lane's words of both sides of a short pair (zeros where the lane has no
// word start, and for any other pair).
template <int L>
__device__ __forceinline__ void fetch_pair(const unsigned int* tp, const unsigned int* tinv, const unsigned int* qp,
                                           const unsigned int* qinv, PairSpan s, int at, LaneWords& tw,
                                           LaneWords& qw)
{
    tw = qw = {0u, 0u, 0u, 0u};
    if (!short_pair<L>(s)) return;
    if (at <= (int)s.tlen() - L) tw = fetch_words(tp, tinv, s.tlo + at);
    if (at <= (int)s.qlen() - L) qw = fetch_words(qp, qinv, s.qlo + at);
}

// The bit table of one warp and where it lies in shared memory.
struct WarpTable { unsigned int* words; unsigned int addr, set_pad, zero_pad; int size; };

// Count pair i into out[i] (its span in cur, the lane's words of a short
// pair in tw, qw), while the words of the next pair (span nxt) are read into
// ntw, nqw and, once cur is no longer needed, the span of the pair after
// that into cur. The loop calls it with the two slots swapped, so nothing
// read ahead is copied (a copy would wait for the read).
template <int L>
__device__ __forceinline__ void count_step(const unsigned int* tp, const unsigned int* tinv, const long long* t_off,
                                           const unsigned int* qp, const unsigned int* qinv, const long long* q_off,
                                           long long npairs, long long i, long long stride, WarpTable tab, int lane,
                                           PairSpan& cur, LaneWords tw, LaneWords qw, PairSpan nxt, LaneWords& ntw,
                                           LaneWords& nqw, long long* out)
{
    int at = lane * SH_SPAN;
    fetch_pair<L>(tp, tinv, qp, qinv, nxt, at, ntw, nqw);
    unsigned int cnt;
    if (short_pair<L>(cur)) {
        unsigned int ta[SH_SPAN], qa[SH_SPAN];
        LaneKeys tk = decode_keys<L>(tw, cur.tlo + at, (int)cur.tlen() - at);
        LaneKeys qk = decode_keys<L>(qw, cur.qlo + at, (int)cur.qlen() - at);
        cur = pair_span(t_off, q_off, i + 2 * stride, npairs);
        key_addrs<L>(tk, tab.addr, tab.set_pad, ta);
        key_addrs<L>(qk, tab.addr, tab.zero_pad, qa);
        set_keys(tk, ta);
        __syncwarp();
        cnt = count_keys(qk, qa);
        __syncwarp();
        unset_keys(ta);
    } else {
        PairSpan s = cur;
        cur = pair_span(t_off, q_off, i + 2 * stride, npairs);
        warp_walk<L, SH_SET>(tp, tinv, s.tlo, s.tlen(), tab.addr, tab.set_pad, lane);
        __syncwarp();
        cnt = warp_walk<L, SH_COUNT>(qp, qinv, s.qlo, s.qlen(), tab.addr, tab.zero_pad, lane);
        __syncwarp();
        if (s.tlen() <= 2LL * tab.size)
            warp_walk<L, SH_UNSET>(tp, tinv, s.tlo, s.tlen(), tab.addr, tab.set_pad, lane);
        else for (int w = lane; w < tab.size; w += 32) tab.words[w] = 0u;
    }
    cnt = __reduce_add_sync(0xffffffffu, cnt);
    if (lane == 0) out[i] = (long long)cnt;
    __syncwarp();
}

// Pair i: the count of query positions of q[q_off[i]:q_off[i+1]] whose b-mer
// occurs in t[t_off[i]:t_off[i+1]] (t and q as pack_codes left them). Each
// warp takes the pairs i, i + stride, ... Tables are cleared once per warp,
// then after each pair by unsetting the target's words. Short pairs are
// pipelined (count_step): the words of the next pair and the span of the one
// after are read while this one is counted, and the target's table addresses
// stay in registers for the unsetting. Longer pairs walk their stretches, and
// wipe the table when that is cheaper than a walk.
template <int L>
__device__ __forceinline__ void count_pairs_body(const unsigned int* tp, const unsigned int* tinv, const long long* t_off,
                                                 const unsigned int* qp, const unsigned int* qinv,
                                                 const long long* q_off, long long npairs, int bits, long long* out)
{
    extern __shared__ unsigned int tables[];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, per_block = blockDim.x >> 5;
    int words = max(1, (1 << bits) >> 5), padded = (words + 31) / 32 * 32 + 64;   // table, set pad, zero pad
    WarpTable tab;
    tab.words = tables + (long long)warp * padded;
    tab.addr = (unsigned int)__cvta_generic_to_shared(tab.words);
    tab.set_pad = tab.addr + 4 * (padded - 64 + lane);
    tab.zero_pad = tab.set_pad + 128;
    tab.size = words;
    for (int w = lane; w < padded; w += 32) tab.words[w] = 0u;
    __syncwarp();
    long long stride = (long long)gridDim.x * per_block;
    long long i = (long long)blockIdx.x * per_block + warp;
    PairSpan sa = pair_span(t_off, q_off, i, npairs), sb = pair_span(t_off, q_off, i + stride, npairs);
    LaneWords ta, qa, tb, qb;
    fetch_pair<L>(tp, tinv, qp, qinv, sa, lane * SH_SPAN, ta, qa);
    while (i < npairs) {
        count_step<L>(tp, tinv, t_off, qp, qinv, q_off, npairs, i, stride, tab, lane, sa, ta, qa, sb, tb, qb, out);
        i += stride;
        if (i >= npairs) break;
        count_step<L>(tp, tinv, t_off, qp, qinv, q_off, npairs, i, stride, tab, lane, sb, tb, qb, sa, ta, qa, out);
        i += stride;
    }
}

extern "C" {

// count_pairs_<L>: count_pairs_body for words of L letters (bits = 2L or 2L + 1).
#define SH_COUNT_PAIRS(L)                                                                                          \
    __global__ void count_pairs_##L(const unsigned int* tp, const unsigned int* tinv, const long long* t_off,       \
                                    const unsigned int* qp, const unsigned int* qinv, const long long* q_off,       \
                                    long long npairs, int bits, long long* out)                                     \
    {                                                                                                               \
        count_pairs_body<L>(tp, tinv, t_off, qp, qinv, q_off, npairs, bits, out);                                   \
    }
SH_COUNT_PAIRS(4)
SH_COUNT_PAIRS(5)
SH_COUNT_PAIRS(6)
SH_COUNT_PAIRS(7)
SH_COUNT_PAIRS(8)
#undef SH_COUNT_PAIRS

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
