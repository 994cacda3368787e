// Shapes (geometry.h): boxes, convex polygons, their bounds, and which points they contain.
#include "lidarsim/geometry.h"

#include "core/exact.h"
#include "core/geometry_internal.h"
#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

lsVec2 lsUnitVector(lsVec2 v)
{
    double len2 = v.x * v.x + v.y * v.y;
    if (len2 > 0x1p-1000 && len2 < 0x1p1000)
    {
        double inv = 1.0 / sqrt(len2);
        return (lsVec2){v.x * inv, v.y * inv};
    }
    double m = lsFmax(fabs(v.x), fabs(v.y));
    if (!(m > 0.0) || !isfinite(m))
    {
        return (lsVec2){0.0, 0.0};
    }
    lsVec2 w = {v.x / m, v.y / m};
    double inv = 1.0 / sqrt(w.x * w.x + w.y * w.y);
    return (lsVec2){w.x * inv, w.y * inv};
}

int lsCircleSideSign(lsVec2 p, lsVec2 c, double r)
{
    double fx = p.x - c.x, fy = p.y - c.y;
    double ff = fx * fx + fy * fy;
    double rr = r * r;
    double v = ff - rr;
    // fx rounded (eps), squared (3 eps), summed (4 eps), minus rr (eps), final rounding: under 6 eps of ff + rr.
    double bound = LS_FILTER_BOUND8 * (ff + rr);
    if (fabs(v) > bound && bound >= LS_FILTER_TINY && isfinite(bound))
    {
        return v > 0.0 ? 1 : -1;
    }
    lsExactTerm terms[7] = {
        {{p.x, p.x}, 2},       {{-2.0, p.x, c.x}, 3}, {{c.x, c.x}, 2}, {{p.y, p.y}, 2},
        {{-2.0, p.y, c.y}, 3}, {{c.y, c.y}, 2},       {{-r, r}, 2},
    };
    return lsExactSign(terms, 7);
}

// ---------------------------------------------------------------------------------------------------------------------
// Shapes

lsBox lsMakeBox(lsVec2 center, lsVec2 size, double angle)
{
    LS_ASSERT(size.x >= 0.0 && size.y >= 0.0);
    lsBox box = {center, {0.5 * size.x, 0.5 * size.y}, lsMakeRot(angle)};
    return box;
}

bool lsMakePolygon(lsPolygon* out, const lsVec2* points, int count)
{
    LS_ASSERT(out != NULL && points != NULL);
    if (count < 3 || count > LS_MAX_POLYGON_VERTICES)
    {
        return false;
    }
    if (!lsAreValidVec2s(points, count))
    {
        return false;
    }
    // Winding from the first strict turn; every turn must then have that sign (exactly), which rejects collinear
    // and repeated points and reflex corners.
    int winding = lsOrient(points[count - 1], points[0], points[1]);
    if (winding == 0)
    {
        return false;
    }
    for (int i = 0; i < count; ++i)
    {
        lsVec2 a = points[i], b = points[(i + 1) % count], c = points[(i + 2) % count];
        if (lsOrient(a, b, c) != winding)
        {
            return false;
        }
    }
    // All turns one way still allows a star that winds twice. The edge direction turns monotonically, so the sign
    // of its x component changes exactly twice per turn around (the sign of a double difference is exact).
    int changes = 0, lastSign = 0;
    for (int pass = 0; pass < 2; ++pass)
    {
        for (int i = 0; i < count; ++i)
        {
            double dx = points[(i + 1) % count].x - points[i].x;
            int sign = dx > 0.0 ? 1 : (dx < 0.0 ? -1 : 0);
            if (sign != 0)
            {
                if (pass == 1 && lastSign != 0 && sign != lastSign)
                {
                    ++changes;
                }
                lastSign = sign;
            }
        }
    }
    if (changes > 2)
    {
        return false;
    }
    out->count = count;
    for (int i = 0; i < count; ++i)
    {
        out->vertices[i] = winding > 0 ? points[i] : points[count - 1 - i];
    }
    for (int i = 0; i < count; ++i)
    {
        lsVec2 e = lsDirectionOf(out->vertices[i], out->vertices[(i + 1) % count]);
        out->normals[i] = lsUnitVector(lsRightPerp(e));
    }
    return true;
}

void lsBox_Corners(const lsBox* box, lsVec2 corners[4])
{
    double hx = box->halfSize.x, hy = box->halfSize.y;
    lsTransform xf = {box->center, box->rot};
    corners[0] = lsTransformPoint(xf, lsV(-hx, -hy));
    corners[1] = lsTransformPoint(xf, lsV(hx, -hy));
    corners[2] = lsTransformPoint(xf, lsV(hx, hy));
    corners[3] = lsTransformPoint(xf, lsV(-hx, hy));
}

lsAABB lsBox_Bounds(const lsBox* box)
{
    // |c| hx + |s| hy is the exact half extent; one ulp of padding covers its rounding.
    double c = fabs(box->rot.c), s = fabs(box->rot.s);
    double ex = c * box->halfSize.x + s * box->halfSize.y;
    double ey = s * box->halfSize.x + c * box->halfSize.y;
    lsAABB b = {{box->center.x - ex, box->center.y - ey}, {box->center.x + ex, box->center.y + ey}};
    b.lower = (lsVec2){nextafter(b.lower.x, -HUGE_VAL), nextafter(b.lower.y, -HUGE_VAL)};
    b.upper = (lsVec2){nextafter(b.upper.x, HUGE_VAL), nextafter(b.upper.y, HUGE_VAL)};
    return b;
}

lsAABB lsPolygon_Bounds(const lsPolygon* polygon)
{
    LS_ASSERT(polygon->count >= 1);
    lsAABB b = {polygon->vertices[0], polygon->vertices[0]};
    for (int i = 1; i < polygon->count; ++i)
    {
        b.lower = lsMin(b.lower, polygon->vertices[i]);
        b.upper = lsMax(b.upper, polygon->vertices[i]);
    }
    return b;
}

lsAABB lsCircle_Bounds(const lsCircle* circle)
{
    lsVec2 c = circle->center;
    double r = circle->radius;
    return (lsAABB){{c.x - r, c.y - r}, {c.x + r, c.y + r}};
}

// ---------------------------------------------------------------------------------------------------------------------
// Containment

bool lsCircle_Contains(const lsCircle* circle, lsVec2 p)
{
    return lsCircleSideSign(p, circle->center, circle->radius) <= 0;
}

bool lsBox_Contains(const lsBox* box, lsVec2 p)
{
    lsVec2 local = lsInvRotate(box->rot, lsSub(p, box->center));
    return fabs(local.x) <= box->halfSize.x && fabs(local.y) <= box->halfSize.y;
}

bool lsPolygon_Contains(const lsPolygon* polygon, lsVec2 p)
{
    int n = polygon->count;
    for (int i = 0; i < n; ++i)
    {
        if (lsOrient(polygon->vertices[i], polygon->vertices[i + 1 < n ? i + 1 : 0], p) < 0)
        {
            return false;
        }
    }
    return true;
}
