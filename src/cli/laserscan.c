// lidarsim program: LaserScan JSON, one writer for every command that prints scans.
#include "cli/laserscan.h"

#include <stdlib.h>
#include <string.h>

void lsWriteJsonNumber(FILE* out, double value)
{
    char text[64];
    for (int precision = 15; precision <= 17; ++precision)
    {
        snprintf(text, sizeof text, "%.*g", precision, value);
        if (strtod(text, NULL) == value)
        {
            break;
        }
    }
    size_t length = strlen(text);
    if (strpbrk(text, ".eEni") == NULL && length + 3 <= sizeof text)
    {
        memcpy(text + length, ".0", 3);
    }
    fputs(text, out);
}

static void WriteNoHit(FILE* out, lsNoHitStyle noHit, double rangeMax)
{
    switch (noHit)
    {
    case ls_noHitInf:
        fputs("Infinity", out);
        break;
    case ls_noHitNan:
        fputs("NaN", out);
        break;
    case ls_noHitMax:
        lsWriteJsonNumber(out, rangeMax);
        break;
    default:
        fputs("null", out);
        break;
    }
}

void lsWriteLaserScanJson(FILE* out, const lsScene* scene, const lsScan* scan, double scanTime, lsNoHitStyle noHit,
                          const double pose[3])
{
    fputs("{\"angle_min\": ", out);
    lsWriteJsonNumber(out, scan->layout.angleMin);
    fputs(", \"angle_max\": ", out);
    lsWriteJsonNumber(out, scan->layout.angleMax);
    fputs(", \"angle_increment\": ", out);
    lsWriteJsonNumber(out, scan->layout.angleIncrement);
    fputs(", \"range_min\": ", out);
    lsWriteJsonNumber(out, scan->rangeMin);
    fputs(", \"range_max\": ", out);
    lsWriteJsonNumber(out, scan->rangeMax);
    fputs(", \"time_increment\": 0.0, \"scan_time\": ", out);
    lsWriteJsonNumber(out, scanTime);
    fputs(", \"ranges\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? ", " : "", out);
        if (scan->kinds[i] == ls_hitNone)
        {
            WriteNoHit(out, noHit, scan->rangeMax);
        }
        else
        {
            lsWriteJsonNumber(out, scan->ranges[i]);
        }
    }
    fputs("], \"intensities\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? ", " : "", out);
        lsWriteJsonNumber(out, scan->intensities[i]);
    }
    fputs("], \"hits\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? ", " : "", out);
        if (scan->kinds[i] == ls_hitNone)
        {
            fputs("null", out);
        }
        else
        {
            fprintf(out, "\"%s\"", lsHitKindName(scan->kinds[i]));
        }
    }
    fputs("], \"indices\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? ", " : "", out);
        if (scan->kinds[i] == ls_hitNone)
        {
            fputs("null", out);
        }
        else
        {
            fprintf(out, "%d", scan->indices[i]);
        }
    }
    fputs("], \"target_kinds\": [", out);
    for (int i = 0; i < scan->count; ++i)
    {
        fputs(i > 0 ? ", " : "", out);
        if (scan->kinds[i] == ls_hitTarget)
        {
            fprintf(out, "\"%s\"", lsScene_TargetKind(scene, scan->indices[i]) == ls_poison ? "poison" : "food");
        }
        else
        {
            fputs("null", out);
        }
    }
    fputs("], \"pose\": [", out);
    lsWriteJsonNumber(out, pose[0]);
    fputs(", ", out);
    lsWriteJsonNumber(out, pose[1]);
    fputs(", ", out);
    lsWriteJsonNumber(out, pose[2]);
    fputs("]}", out);
}
