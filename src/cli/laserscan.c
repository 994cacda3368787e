// lidarsim program: LaserScan JSON, one writer for every command that prints scans.
#include "cli/laserscan.h"

#include "core/text.h"
#include "lidarsim/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsWriteJsonNumber(FILE* out, double value)
{
    if (!isfinite(value))
    {
        fputs("null", out);
        return;
    }
    char text[64];
    lsFormatNumber(text, sizeof text, value);
    size_t length = strlen(text);
    if (strpbrk(text, ".eEni") == NULL && length + 3 <= sizeof text)
    {
        memcpy(text + length, ".0", 3);
    }
    fputs(text, out);
}

void lsWriteJsonString(FILE* out, const char* text)
{
    fputc('"', out);
    size_t left = strlen(text);
    for (const unsigned char* p = (const unsigned char*)text; *p != '\0'; ++p, --left)
    {
        if (*p == '"' || *p == '\\')
        {
            fputc('\\', out);
            fputc(*p, out);
        }
        else if (*p < 0x20)
        {
            fprintf(out, "\\u%04x", (unsigned)*p);
        }
        else if (*p < 0x80)
        {
            fputc(*p, out);
        }
        else
        {
            int length = lsUtf8Length((const char*)p, left);
            if (length == 0)
            {
                fputs("\\ufffd", out);
                continue;
            }
            fwrite(p, 1, (size_t)length, out);
            p += length - 1, left -= (size_t)length - 1;
        }
    }
    fputc('"', out);
}

void lsWriteLaserScanJson(FILE* out, const lsScene* scene, const lsScan* scan, double stamp, double scanTime,
                          lsNoHitStyle noHit, lsScanPose pose)
{
    LS_ASSERT(noHit == ls_noHitNull || noHit == ls_noHitMax);
    // builtin_interfaces/Time: whole seconds and nanoseconds in [0, 1e9), rounded to the nearest nanosecond.
    double sec = floor(stamp);
    long long nanosec = llround((stamp - sec) * 1e9);
    if (nanosec >= 1000000000)
    {
        sec += 1.0;
        nanosec -= 1000000000;
    }
    fprintf(out,
            "{\"header\": {\"stamp\": {\"sec\": %.0f, \"nanosec\": %lld}, \"frame_id\": \"%s\"}, \"angle_min\": ", sec,
            nanosec, LS_LASER_FRAME_ID);
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
            if (noHit == ls_noHitMax)
            {
                lsWriteJsonNumber(out, scan->rangeMax);
            }
            else
            {
                fputs("null", out);
            }
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
    fputs("], \"pose\": {\"x\": ", out);
    lsWriteJsonNumber(out, pose.x);
    fputs(", \"y\": ", out);
    lsWriteJsonNumber(out, pose.y);
    fputs(", \"theta\": ", out);
    lsWriteJsonNumber(out, pose.theta);
    fputs(", \"theta_deg\": ", out);
    double degrees;
    lsExactDegrees(pose.theta, &degrees); // the degrees given (--pose 1,2,3: 3), or the nearest when none maps back
    lsWriteJsonNumber(out, degrees);
    fputs("}}", out);
}
