// The machine's memory, as the lidar's index meets it: random cache lines read in K independent chains (each read's
// address comes from the previous read of its chain, as a walk's records come from its cell's header), over blocks
// the size of the bench worlds' indexes. It prints the lines per second and the nanoseconds per line for each K: one
// chain gives the latency, many chains how many misses the core keeps in flight. docs/performance.md ("What limits
// it") reads the figures against the rays' cost. Never asserts timings.
// Usage: ls_bench_memory [--csv] [--mb N...]   (default blocks: 0.25, 3, 28 MB: city-1k's, city-10k's, city-100k's)
#define _POSIX_C_SOURCE 200809L // clock_gettime

#include "bench_args.h"
#include "cli/clock.h"
#include "lidarsim/base.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum
{
    ls_maxChains = 32,
    ls_lineWords = 8, // 64-byte lines of uint64_t
};

// Lines per second over a block of lineCount lines linked in one random cycle (line i holds the next line's index),
// walked by `chains` chains started evenly around the cycle, about `reads` reads in all.
static double ChainRate(const uint64_t* block, const uint32_t* cycle, size_t lineCount, int chains, size_t reads,
                        uint64_t* sink)
{
    uint64_t at[ls_maxChains];
    for (int k = 0; k < chains; ++k)
    {
        at[k] = cycle[lineCount / (size_t)chains * (size_t)k];
    }
    size_t steps = reads / (size_t)chains;
    double t0 = lsCpuSeconds();
    for (size_t i = 0; i < steps; ++i)
    {
        for (int k = 0; k < chains; ++k)
        {
            at[k] = block[at[k] * ls_lineWords];
        }
    }
    double seconds = lsCpuSeconds() - t0;
    for (int k = 0; k < chains; ++k)
    {
        *sink += at[k];
    }
    return seconds > 0.0 ? (double)(steps * (size_t)chains) / seconds : 0.0;
}

int main(int argc, char** argv)
{
    bool csv = false;
    double sizes[16] = {0.25, 3.0, 28.0};
    int sizeCount = 3;
    bool given = false; // the first --mb replaces the defaults
    for (int i = 1; i < argc; ++i)
    {
        if (strcmp(argv[i], "--csv") == 0)
        {
            csv = true;
        }
        else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
        {
            sizeCount = given ? sizeCount : 0;
            given = true;
            if (sizeCount == 16)
            {
                fprintf(stderr, "%s: --mb: at most 16 sizes\n", argv[0]);
                return 2;
            }
            if (!lsBenchNumberArg(argv[0], "--mb", argv[++i], 0.01, 4096.0, sizes + sizeCount))
            {
                return 2;
            }
            ++sizeCount;
        }
        else
        {
            fprintf(stderr, "usage: %s [--csv] [--mb N...]\n", argv[0]);
            return 2;
        }
    }
    static const int chainCounts[] = {1, 2, 4, 8, 12, 16, 24, 32};
    int chainKinds = (int)(sizeof chainCounts / sizeof chainCounts[0]);
    uint64_t sink = 0;
    printf(csv ? "mb,chains,lines_per_s,ns_per_line\n" : "%8s %6s %14s %12s\n", "MB", "chains", "M lines/s", "ns/line");
    for (int s = 0; s < sizeCount; ++s)
    {
        size_t lineCount = (size_t)(sizes[s] * 1048576.0 / 64.0);
        lineCount = lineCount < 2 ? 2 : lineCount;
        uint64_t* block = lsAlloc(lineCount * 64);
        uint32_t* cycle = lsAlloc(lineCount * sizeof(uint32_t));
        // A random cyclic order of the lines (Fisher-Yates), each line pointing at the next.
        lsRng rng = lsMakeRng(1234);
        for (size_t i = 0; i < lineCount; ++i)
        {
            cycle[i] = (uint32_t)i;
        }
        for (size_t i = lineCount - 1; i > 0; --i)
        {
            size_t j = (size_t)(lsRng_Next(&rng) % (i + 1));
            uint32_t t = cycle[i];
            cycle[i] = cycle[j], cycle[j] = t;
        }
        memset(block, 0, lineCount * 64);
        for (size_t i = 0; i < lineCount; ++i)
        {
            block[(size_t)cycle[i] * ls_lineWords] = cycle[(i + 1) % lineCount];
        }
        for (int c = 0; c < chainKinds; ++c)
        {
            int chains = chainCounts[c];
            ChainRate(block, cycle, lineCount, chains, 1u << 20, &sink); // warm the block and the TLB
            double rate = ChainRate(block, cycle, lineCount, chains, (size_t)20 << 20, &sink);
            double ns = rate > 0.0 ? 1e9 / rate : 0.0;
            printf(csv ? "%g,%d,%.0f,%.2f\n" : "%8g %6d %14.1f %12.2f\n", sizes[s], chains, csv ? rate : rate / 1e6,
                   ns);
        }
        lsFree(cycle, lineCount * sizeof(uint32_t));
        lsFree(block, lineCount * 64);
    }
    // The sink keeps the chains' loads from being optimised away; its value means nothing.
    fprintf(stderr, "(sink %llu)\n", (unsigned long long)(sink & 1));
    return 0;
}
