// Seed stage kernels: twins of cpu/seeds.py (keys, lookup of query words).
// The index itself (stable sort by key, bucket table) is built with CuPy's
// sort and bincount in gpu/seeds.py.

extern "C" {

// keys[p]: the word starting at p, packed 2 bits per care position (first in
// the high bits); -1 where any of the span letters is not A, C, G or T.
__global__ void seed_keys(const unsigned char* codes, long long n, const int* care, int w, int span,
                          long long* keys)
{
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    long long k = -1;
    if (p + span <= n) {
        bool ok = true;
        for (int s = 0; s < span; ++s) {
            if (codes[p + s] > 3) { ok = false; break; }
        }
        if (ok) {
            k = 0;
            for (int c = 0; c < w; ++c) k = (k << 2) | codes[p + care[c]];
        }
    }
    keys[p] = k;
}

// [first, last) of the index entries holding key (cpu/seeds._key_range).
__device__ __forceinline__ void key_range(long long key, const long long* sorted_keys,
                                          const long long* bucket, int shift,
                                          long long* first, long long* last)
{
    long long b = key >> shift;
    long long lo = bucket[b], hi = bucket[b + 1];
    if (shift == 0) { *first = lo; *last = hi; return; }
    long long a = lo, z = hi;
    while (a < z) {
        long long m = (a + z) >> 1;
        if (sorted_keys[m] < key) a = m + 1; else z = m;
    }
    *first = a;
    z = hi;
    while (a < z) {
        long long m = (a + z) >> 1;
        if (sorted_keys[m] <= key) a = m + 1; else z = m;
    }
    *last = a;
}

// Entries [lo, hi) that pass the self-comparison filter form a prefix
// (positions ascend within a key): cut it by binary search.
__device__ __forceinline__ long long self_cut(long long lo, long long hi, const long long* sorted_pos,
                                              int self_mode, long long q, long long q_total, int span)
{
    if (self_mode == 0) return hi;
    // mode 1: keep t < q; mode 2: keep t <= q_total - q - span
    long long lim = self_mode == 1 ? q : q_total - q - span + 1;   // keep t < lim
    long long a = lo, z = hi;
    while (a < z) {
        long long m = (a + z) >> 1;
        if (sorted_pos[m] < lim) a = m + 1; else z = m;
    }
    return a;
}

// One thread per item = (query position, key variant), items numbered from
// query q_lo: item / nvar is the query offset, item % nvar the variant (0 the
// exact key, v > 0 flips care position v-1 by a transition). Item order is
// the CPU's order. fill == 0: counts[item] = number of hits, for items
// [item_lo, item_hi). fill == 1: write the hits of those items at
// starts[item] - base.
__global__ void find_hits(const long long* qkeys, long long q_lo, int nvar, long long item_lo,
                          long long item_hi, const long long* sorted_keys, const long long* sorted_pos,
                          const long long* bucket, int shift, int self_mode, long long q_total, int span,
                          long long* counts, const long long* starts, long long base,
                          long long* hit_q, long long* hit_t, int fill)
{
    long long item = item_lo + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item >= item_hi) return;
    long long q = q_lo + item / nvar;
    int v = (int)(item % nvar);
    long long k0 = qkeys[q];
    long long lo = 0, hi = 0;
    if (k0 >= 0) {
        long long k = v > 0 ? (k0 ^ (2LL << (2 * (v - 1)))) : k0;
        key_range(k, sorted_keys, bucket, shift, &lo, &hi);
        hi = self_cut(lo, hi, sorted_pos, self_mode, q, q_total, span);
        if (hi < lo) hi = lo;
    }
    if (!fill) { counts[item] = hi - lo; return; }
    long long o = starts[item] - base;
    for (long long e = lo; e < hi; ++e) {
        hit_q[o] = q;
        hit_t[o] = sorted_pos[e];
        ++o;
    }
}

}  // extern "C"
