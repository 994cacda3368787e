// ScanArgsTest: the scan command's parser (src/cli/scan_args.h): good command lines, every kind of bad value
// with its message (a beam count of 10^12 included), poses files, limits, and no leaks on any path.
#include "test.h"

#include "cli/options.h"
#include "cli/scan_args.h"
#include "lidarsim/world.h"

#include <string.h>

// Parses a NULL-terminated list of arguments.
static bool Parse(lsScanArgs* out, lsError* err, const char* const* list)
{
    int argc = 0;
    while (list[argc] != NULL)
    {
        ++argc;
    }
    return lsParseScanArgs(argc, (char**)list, out, err);
}

static int GoodTest(void)
{
    lsScanArgs a;
    lsError err = {{0}};
    const char* line[] = {"w.json",   "--pose",  "1,2,90",   "--pose", "-1.5,2e1,-45",
                          "--beams",  "100000",  "--fov",    "360",    "--range",
                          "12.5",     "--noise", "0",        "--seed", "18446744073709551615",
                          "--format", "csv",     "--no-hit", "max",    NULL};
    ENSURE(Parse(&a, &err, line));
    ENSURE(!a.help && strcmp(a.worldPath, "w.json") == 0 && a.posesPath == NULL);
    ENSURE(a.poseCount == 2 && a.poses[0] == 1.0 && a.poses[1] == 2.0 && a.poses[2] == 90.0);
    ENSURE(a.poses[3] == -1.5 && a.poses[4] == 20.0 && a.poses[5] == -45.0);
    ENSURE(a.beams == LS_MAX_BEAMS && a.fovDeg == 360.0 && a.range == 12.5 && a.noise == 0.0);
    ENSURE(a.haveSeed && a.seed == UINT64_MAX && a.csv && a.noHit == ls_noHitMax);
    lsFreeScanArgs(&a);

    // Defaults: only the world.
    const char* plain[] = {"w.json", NULL};
    ENSURE(Parse(&a, &err, plain));
    ENSURE(a.beams == 0 && a.fovDeg == 0.0 && a.range == 0.0 && a.noise == -1.0 && !a.haveSeed && !a.csv);
    ENSURE(a.noHit == ls_noHitNull && a.poseCount == 0);
    lsFreeScanArgs(&a);

    // getopt_long: `--opt=value` and `--opt value`, options before the file, "--" ends the options, the argument
    // array is left as it was.
    const char* forms[] = {"--beams=4", "--pose", "-1,2,3", "--format=csv", "--", "-odd-name.json", NULL};
    const char* copy[7];
    memcpy(copy, forms, sizeof copy);
    ENSURE(Parse(&a, &err, forms));
    ENSURE(a.beams == 4 && a.poseCount == 1 && a.poses[0] == -1.0 && a.csv);
    ENSURE(strcmp(a.worldPath, "-odd-name.json") == 0);
    ENSURE(memcmp(copy, forms, sizeof copy) == 0);
    lsFreeScanArgs(&a);

    // Every bound of the world file (core/limits.h) just inside is accepted.
    const char* edges[] = {"w.json",  "--pose", "1e6,-1e6,-1e6", "--range", "1e6",
                           "--noise", "1e6",    "--fov",         "360",     NULL};
    ENSURE(Parse(&a, &err, edges));
    ENSURE(a.poses[0] == 1e6 && a.poses[1] == -1e6 && a.poses[2] == -1e6 && a.range == 1e6 && a.noise == 1e6);
    lsFreeScanArgs(&a);
    const char* small[] = {"w.json", "--range", "0.0001", "--noise", "0", "--fov", "1e-6", NULL};
    ENSURE(Parse(&a, &err, small));
    ENSURE(a.range == 1e-4 && a.noise == 0.0 && a.fovDeg == 1e-6);
    lsFreeScanArgs(&a);
    // The decimal forms people type: a sign, a point without digits on one side, an exponent; an underflow is 0.
    const char* forms2[] = {"w.json", "--pose", "+.5,5.,-1E+1", "--pose", "1e-400, -2e-3 ,\t0 ", NULL};
    ENSURE(Parse(&a, &err, forms2));
    ENSURE(a.poses[0] == 0.5 && a.poses[1] == 5.0 && a.poses[2] == -10.0 && a.poses[3] == 0.0 && a.poses[4] == -2e-3);
    ENSURE(a.poses[5] == 0.0);
    lsFreeScanArgs(&a);

    // Help wins wherever it is, even with errors around it.
    const char* help[] = {"--fov", "999", "-h", NULL};
    ENSURE(Parse(&a, &err, help) && a.help);
    lsFreeScanArgs(&a);
    return 0;
}

static int BadTest(void)
{
    struct
    {
        const char* args[4];
        const char* message;
    } cases[] = {
        {{"w.json", "--beams", "1e12", NULL}, "--beams: expected an integer in 1..100000, got '1e12'"},
        {{"w.json", "--beams", "1000000000000", NULL}, "--beams: expected an integer in 1..100000"},
        {{"w.json", "--beams", "0", NULL}, "--beams: expected an integer in 1..100000, got '0'"},
        {{"w.json", "--beams", "12abc", NULL}, "--beams: expected an integer"},
        {{"w.json", "--fov", "0", NULL}, "--fov: expected a field of view in [1e-06, 360] deg, got '0'"},
        {{"w.json", "--fov", "4.9e-324", NULL}, "--fov: expected a field of view in [1e-06, 360] deg"},
        {{"w.json", "--fov", "nan", NULL}, "--fov: expected a field of view in [1e-06, 360] deg"},
        {{"w.json", "--fov", "360.00000000000006", NULL}, "--fov: expected a field of view in [1e-06, 360] deg"},
        {{"w.json", "--range", "inf", NULL}, "--range: expected a range in [0.0001, 1e+06] m, got 'inf'"},
        {{"w.json", "--range", "1e999", NULL}, "--range: expected a range in [0.0001, 1e+06] m"},
        {{"w.json", "--range", "1000000.0000000001", NULL}, "--range: expected a range in [0.0001, 1e+06] m"},
        {{"w.json", "--range", "9.9999999e-5", NULL}, "--range: expected a range in [0.0001, 1e+06] m"},
        {{"w.json", "--noise", "-0.1", NULL}, "--noise: expected a distance in [0, 1e+06] m"},
        {{"w.json", "--noise", "1.0000001e6", NULL}, "--noise: expected a distance in [0, 1e+06] m"},
        {{"w.json", "--pose", "1.0000001e6,0,0", NULL}, "pose (1000000.1, 0, 0): expected x and y each a coordinate"},
        {{"w.json", "--pose", "0,-1e308,0", NULL}, "pose (0, -1e+308, 0): expected x and y each a coordinate"},
        // Decimals only, as a world file's numbers: not strtod's hexadecimal or leading spaces.
        {{"w.json", "--pose", "0x10,0,0", NULL}, "--pose: expected X,Y,DEG (three numbers), got '0x10,0,0'"},
        {{"w.json", "--pose", "1 2,0,0", NULL}, "--pose: expected X,Y,DEG (three numbers), got '1 2,0,0'"},
        {{"w.json", "--pose", "1,.,0", NULL}, "--pose: expected X,Y,DEG (three numbers), got '1,.,0'"},
        {{"w.json", "--range", "1e", NULL}, "--range: expected a range in [0.0001, 1e+06] m, got '1e'"},
        {{"w.json", "--pose", "0,0,1e308", NULL},
         "pose (0, 0, 1e+308): expected x and y each a coordinate in "
         "[-1e+06, 1e+06] m, and an angle in [-1e+06, 1e+06] deg"},
        {{"w.json", "--seed", "-1", NULL}, "--seed: expected a non-negative integer below 2^64, got '-1'"},
        {{"w.json", "--seed", "18446744073709551616", NULL}, "--seed: expected a non-negative integer below 2^64"},
        {{"w.json", "--seed", " 5", NULL}, "--seed: expected a non-negative integer"},
        {{"w.json", "--format", "xml", NULL}, "--format: expected json or csv, got 'xml'"},
        {{"w.json", "--no-hit", "zero", NULL}, "--no-hit: expected inf, max, nan or null, got 'zero'"},
        {{"w.json", "--pose", "1,2", NULL}, "--pose: expected X,Y,DEG (three numbers), got '1,2'"},
        {{"w.json", "--pose", "1,2,3,", NULL}, "--pose: expected X,Y,DEG"},
        {{"w.json", "--pose", ",,", NULL}, "--pose: expected X,Y,DEG"},
        {{"w.json", "--pose", "1,2,nan", NULL}, "--pose: expected X,Y,DEG"},
        {{"w.json", "--what", "x", NULL}, "unknown option '--what'"},
        {{"w.json", "--beam", "4", NULL}, "unknown option '--beam' (did you mean '--beams'?)"},
        {{"w.json", "--ra=4", NULL}, "unknown option '--ra' (did you mean '--range'?)"},
        {{"w.json", "--help=1", NULL}, "'--help' takes no value"},
        {{"w.json", "-x", NULL}, "unknown option '-x'"},
        {{"w.json", "--no-hit", "inf", NULL}, "--no-hit inf: JSON has no infinity or NaN"},
        {{"w.json", "--beams=0", NULL}, "--beams: expected an integer in 1..100000, got '0'"},
        {{"w.json", "--fov", NULL}, "missing value after '--fov'"},
        {{"a.json", "b.json", NULL}, "more than one world file: 'b.json'"},
        {{"--beams", "5", NULL}, "missing WORLD.json"},
        {{NULL}, "missing WORLD.json"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i)
    {
        lsScanArgs a;
        lsError err = {{0}};
        bool ok = Parse(&a, &err, cases[i].args);
        if (ok || strstr(err.message, cases[i].message) == NULL)
        {
            fprintf(stderr, "  case %d: expected \"%s\", got %s \"%s\"\n", i, cases[i].message, ok ? "success" : "",
                    err.message);
        }
        ENSURE(!ok && strstr(err.message, cases[i].message) == err.message);
        lsFreeScanArgs(&a);
    }

    // A failure after poses were added frees them (RUN_SUBTEST checks the byte count).
    lsScanArgs a;
    lsError err = {{0}};
    const char* late[] = {"w.json", "--pose", "1,2,3", "--pose", "4,5,6", "--beams", "-3", NULL};
    ENSURE(!Parse(&a, &err, late));
    lsFreeScanArgs(&a);

    // A huge value is quoted cut short, so the message stays readable.
    static char big[5000];
    memset(big, '9', sizeof big - 1);
    const char* huge[] = {"w.json", "--fov", big, NULL};
    ENSURE(!Parse(&a, &err, huge));
    ENSURE(strlen(err.message) < 200);
    lsFreeScanArgs(&a);
    return 0;
}

static int NearestNameTest(void)
{
    const char* const commands[] = {"check", "scan", "run", "render", "bench", "help"};
    ENSURE(strcmp(lsNearestName("scna", commands, 6), "scan") == 0);    // a swap is one edit
    ENSURE(strcmp(lsNearestName("rener", commands, 6), "render") == 0); // a missing letter
    ENSURE(strcmp(lsNearestName("chekc", commands, 6), "check") == 0);
    ENSURE(strcmp(lsNearestName("rnu", commands, 6), "run") == 0);
    ENSURE(lsNearestName("foo", commands, 6) == NULL); // nothing close: no guess
    ENSURE(lsNearestName("xy", commands, 6) == NULL);
    ENSURE(lsNearestName("", commands, 6) == NULL);
    return 0;
}

static int PosesFileTest(void)
{
    lsScanArgs a = {0};
    lsError err = {{0}};
    const char* text = "# x y deg\n1 2 90\n  3.5,4.5,-45\r\n\n\t0 0 0 # the origin\n7 , 8\t,9"; // no final newline
    ENSURE(lsParseScanPoses(text, strlen(text), "p.txt", &a, &err));
    ENSURE(a.poseCount == 4 && a.poses[3] == 3.5 && a.poses[5] == -45.0 && a.poses[10] == 8.0 && a.poses[11] == 9.0);
    lsFreeScanArgs(&a);
    // A byte order mark at the start is skipped, as a world file's; columns count from after it.
    const char* bom = "\xEF\xBB\xBF"
                      "1 2 3\n";
    ENSURE(lsParseScanPoses(bom, strlen(bom), "p.txt", &a, &err) && a.poseCount == 1 && a.poses[0] == 1.0);
    lsFreeScanArgs(&a);
    ENSURE(!lsParseScanPoses("\xEF\xBB\xBF"
                             "1 2\n",
                             6, "p.txt", &a, &err));
    ENSURE(strstr(err.message, "p.txt:1:4: expected three numbers") == err.message);
    lsFreeScanArgs(&a);

    struct
    {
        const char* text;
        size_t size; // 0: strlen
        const char* message;
    } cases[] = {
        // line:column, as the world and map loaders give them (review 28: the line only): the number that is wrong,
        // or where the missing one should be.
        {"1 2\n", 0, "p.txt:1:4: expected three numbers 'x y deg'"},
        {"1 2 3\n1 2 3 4\n", 0, "p.txt:2:7: expected three numbers"},
        {"1 2 x\n", 0, "p.txt:1:5: expected three numbers"},
        {"1 2 inf\n", 0, "p.txt:1:5: expected three numbers"},
        {"  1, 2e7, 0\n", 0, "p.txt:1:6: pose (1, 20000000, 0): expected x and y each a coordinate in"},
        {"0 0 1e300\n", 0, "p.txt:1:5: pose (0, 0, 1e+300)"},
        {"# only comments\n\n", 0, "p.txt: no poses"},
        {"", 0, "p.txt: no poses"},
        {"1 2 3\n\0\0\0", 9, "p.txt:2:1: unexpected NUL byte"},
        // A comma stands between two numbers, once: commas were read as spaces, so these were accepted.
        {"1,2,3,\n", 0, "p.txt:1:6: a comma stands only between two numbers"},
        {"1 2 3 , # a comment\n", 0, "p.txt:1:7: a comma stands only between two numbers"},
        {"1,,2,3\n", 0, "p.txt:1:3: a comma stands only between two numbers"},
        {"1, ,2,3\n", 0, "p.txt:1:4: a comma stands only between two numbers"},
        {", 1 2 3\n", 0, "p.txt:1:1: a comma stands only between two numbers"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i)
    {
        size_t size = cases[i].size != 0 ? cases[i].size : strlen(cases[i].text);
        bool ok = lsParseScanPoses(cases[i].text, size, "p.txt", &a, &err);
        if (ok || strstr(err.message, cases[i].message) != err.message)
        {
            fprintf(stderr, "  case %d: expected \"%s\", got \"%s\"\n", i, cases[i].message, err.message);
        }
        ENSURE(!ok && strstr(err.message, cases[i].message) == err.message);
        lsFreeScanArgs(&a);
    }

    // Text that is not NUL-terminated is read only up to size.
    char exact[5] = {'1', ' ', '2', ' ', '3'};
    ENSURE(lsParseScanPoses(exact, sizeof exact, "p.txt", &a, &err) && a.poseCount == 1 && a.poses[2] == 3.0);
    lsFreeScanArgs(&a);

    // The pose limit: one more than LS_SCAN_MAX_POSES lines is refused with the line that broke it.
    size_t size = (size_t)(LS_SCAN_MAX_POSES + 1) * 6;
    char* many = lsAlloc(size);
    static const char line[6] = {'0', ' ', '0', ' ', '0', '\n'}; // a line, not a C string
    for (size_t i = 0; i < size; i += sizeof line)
    {
        memcpy(many + i, line, sizeof line);
    }
    ENSURE(!lsParseScanPoses(many, size, "p.txt", &a, &err));
    ENSURE(strstr(err.message, "p.txt:1000001:1: more than 1000000 poses (the limit)") == err.message);
    lsFreeScanArgs(&a);
    lsFree(many, size);
    return 0;
}

// Every input fuzz_scan_args kept (tests/data/fuzz_scan_args: a unit reported as a timeout on a starved machine,
// 0.15 s alone) and its seed corpus, replayed as an argument list (NUL-separated) and as a poses file: each parse
// must end with a verdict, a message on failure, and no leak.
static int ParseFuzzInput(void* ctx, const char* path, char* data, size_t size)
{
    (void)ctx;
    (void)path;
    char* args[64];
    int argc = 0;
    for (size_t at = 0; at < size && argc < 64; at += strlen(data + at) + 1)
    {
        args[argc++] = data + at;
    }
    lsScanArgs a;
    lsError err = {{0}};
    bool ok = lsParseScanArgs(argc, args, &a, &err);
    lsFreeScanArgs(&a);
    ENSURE(ok || err.message[0] != '\0');
    ok = lsParseScanPoses(data, size, "p.txt", &a, &err);
    lsFreeScanArgs(&a);
    ENSURE(ok || strncmp(err.message, "p.txt", 5) == 0);
    return 0;
}

static int ReplayFuzzInputsTest(void)
{
    int kept = 0, seeds = 0;
    ENSURE(lsTestForEachFile(LS_TEST_DATA_DIR "/fuzz_scan_args", ParseFuzzInput, NULL, &kept) == 0);
    ENSURE(lsTestForEachFile(LS_SOURCE_DIR "/fuzz/scan_args_corpus", ParseFuzzInput, NULL, &seeds) == 0);
    ENSURE(kept + seeds >= 10);
    return 0;
}

int ScanArgsTest(void)
{
    RUN_SUBTEST(GoodTest);
    RUN_SUBTEST(BadTest);
    RUN_SUBTEST(NearestNameTest);
    RUN_SUBTEST(PosesFileTest);
    RUN_SUBTEST(ReplayFuzzInputsTest);
    return 0;
}
