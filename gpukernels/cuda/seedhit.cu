// SeedHit kernels: twins of cpu/seedhit.py. A b-mer is L = bits/2 letters;
// words with N or a separator never count. Bit tables live in shared memory
// (2^bits bits: at most 8 KiB).

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

// One block per pair i: bit table of t[t_off[i]:t_off[i+1]], then the count
// of query positions of q[q_off[i]:q_off[i+1]] whose b-mer is in it.
__global__ void count_pairs(const unsigned char* t, const long long* t_off, const unsigned char* q,
                            const long long* q_off, long long npairs, int bits, long long* out)
{
    extern __shared__ unsigned int table[];
    __shared__ unsigned long long total;
    int L = bits / 2;
    int words = max(1, (1 << bits) >> 5);
    for (long long i = blockIdx.x; i < npairs; i += gridDim.x) {
        for (int w = threadIdx.x; w < words; w += blockDim.x) table[w] = 0;
        if (threadIdx.x == 0) total = 0;
        __syncthreads();
        long long lo = t_off[i], hi = t_off[i + 1];
        for (long long p = lo + threadIdx.x; p + L <= hi; p += blockDim.x) {
            int key = word_at(t, p, L);
            if (key >= 0) atomicOr(&table[key >> 5], 1u << (key & 31));
        }
        __syncthreads();
        unsigned long long cnt = 0;
        lo = q_off[i]; hi = q_off[i + 1];
        for (long long p = lo + threadIdx.x; p + L <= hi; p += blockDim.x) {
            int key = word_at(q, p, L);
            if (key >= 0 && ((table[key >> 5] >> (key & 31)) & 1u)) ++cnt;
        }
        for (int o = 16; o > 0; o >>= 1) cnt += __shfl_down_sync(0xffffffffu, cnt, o);
        if ((threadIdx.x & 31) == 0) atomicAdd(&total, cnt);
        __syncthreads();
        if (threadIdx.x == 0) out[i] = (long long)total;
        __syncthreads();
    }
}

// One block per target window tw (2*window letters from tw*window): for every
// query window w, count its b-mers (wholly inside the window) present in the
// target window and keep the maximum in best[w].
__global__ void window_counts(const unsigned char* t, long long nt, const unsigned char* q, long long nq,
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
                int key = word_at(q, p, L);
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
