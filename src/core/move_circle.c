// lidarsim core: moving a circle (the robot, and the vehicles) with continuous collision against the scene, the
// moving walls and other circles: first time of impact, slide along the contact tangent, pushes by moving walls, then
// the residual overlap resolution of resolve.c.
#include "core/move_internal.h"
#include "core/sweep.h"
#include <stdlib.h>
#include <string.h>

// Unit normal from the segment towards c; when c lies on the segment, the side facing against the motion d.
lsVec2 lsAwayFromSegment(const lsSegment* seg, lsVec2 c, lsVec2 d)
{
    lsClosestPoint cp = lsClosestPointOnSegment(seg, c);
    lsVec2 n = lsNormalize(lsSub(c, cp.point));
    if (n.x == 0.0 && n.y == 0.0)
    {
        n = lsNormalize(lsLeftPerp(lsSub(seg->b, seg->a)));
        if (lsDot(n, d) > 0.0)
        {
            n = lsNeg(n);
        }
        if (n.x == 0.0 && n.y == 0.0)
        {
            n = lsNeg(lsNormalize(d));
        }
    }
    return n;
}

bool lsForEachStaticSegment(const lsScene* scene, lsHitKind kind, int index, int part, lsSegmentFcn* fn, void* context)
{
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(scene, index, part);
        fn(context, &seg);
    }
    else if (kind == ls_hitBox)
    {
        lsVec2 corners[4];
        lsBox_Corners(lsScene_Box(scene, index), corners);
        for (int i = 0; i < 4; ++i)
        {
            lsSegment seg = {corners[i], corners[(i + 1) & 3]};
            fn(context, &seg);
        }
    }
    else if (kind == ls_hitPolygon)
    {
        const lsPolygon* polygon = lsScene_Polygon(scene, index);
        for (int i = 0; i < polygon->count; ++i)
        {
            lsSegment seg = {polygon->vertices[i], polygon->vertices[i + 1 == polygon->count ? 0 : i + 1]};
            fn(context, &seg);
        }
    }
    return true;
}

static void SweepStaticSegment(void* context, const lsSegment* seg)
{
    lsSweepContext* ctx = context;
    double t;
    if (!lsTimeOfImpactCircleSegment(ctx->c0, ctx->c1, ctx->radius, seg, &t) || t >= ctx->t)
    {
        return;
    }
    lsVec2 n = lsAwayFromSegment(seg, lsLerp(ctx->c0, ctx->c1, t), ctx->d);
    if (lsDot(ctx->d, n) >= -LS_SLIDE_TOLERANCE * lsLength(ctx->d))
    {
        return; // touching already and moving along or away: sliding, not a new contact
    }
    ctx->t = t;
    ctx->normal = n;
    ctx->hit = true;
}

static bool SweepQuery(void* context, lsHitKind kind, int index, int part)
{
    lsSweepContext* ctx = context;
    if (ctx->t <= 0.0)
    {
        // A contact at the very start is the earliest there can be (contact times lie in [0, 1], and a later one
        // at the same time never replaces the first): the rest of the query cannot change the answer (a body among
        // thousands of walls it overlaps tested each of them).
        return false;
    }
    return lsForEachStaticSegment(ctx->scene, kind, index, part, SweepStaticSegment, ctx);
}

// One straight sweep from c0 to c0 + d over the step times [tFrom, 1]: the earliest contact (fraction of d).
lsSweepContext lsSweepOnce(const lsCollisionWorld* cw, lsVec2 c0, lsVec2 d, double radius, double tFrom,
                           bool withMovers)
{
    lsSweepContext ctx = {cw->scene, c0, lsAdd(c0, d), d, radius + LS_CONTACT_SKIN, HUGE_VAL, {0.0, 0.0}, false};
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, lsInflatedBox(ctx.c0, ctx.c1, ctx.radius), SweepQuery, &ctx);
    }
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i == cw->skipCircle)
        {
            continue;
        }
        lsSegment point = {cw->circles[i].center, cw->circles[i].center};
        lsSweepContext sub = ctx;
        sub.radius = ctx.radius + cw->circles[i].radius;
        SweepStaticSegment(&sub, &point);
        if (sub.hit && sub.t < ctx.t)
        {
            ctx.t = sub.t;
            ctx.normal = sub.normal;
            ctx.hit = true;
        }
    }
    if (withMovers)
    {
        for (int i = 0; i < cw->moverCount; ++i)
        {
            lsSegment s0 = cw->moversStart[i];
            lsSegment s1 = cw->moversEnd[i];
            lsVec2 p0 = lsLerp(s0.a, s1.a, tFrom);
            lsVec2 q0 = lsLerp(s0.b, s1.b, tFrom);
            // Endpoints move linearly, so the wall stays inside the box of its start and end segments.
            lsAABB wallBox = lsAABB_Union(lsAABB_OfSegment(p0, q0), lsAABB_OfSegment(s1.a, s1.b));
            if (!lsAABB_Overlaps(wallBox, lsInflatedBox(ctx.c0, ctx.c1, ctx.radius)))
            {
                continue;
            }
            double t;
            if (!lsTimeOfImpactCircleMovingSegment(ctx.c0, ctx.c1, ctx.radius, p0, s1.a, q0, s1.b, &t) || t >= ctx.t)
            {
                continue;
            }
            lsSegment at = {lsLerp(p0, s1.a, t), lsLerp(q0, s1.b, t)};
            lsVec2 c = lsLerp(ctx.c0, ctx.c1, t);
            lsClosestPoint cp = lsClosestPointOnSegment(&at, c);
            // Velocity of the touching point of the wall over the rest of the step, for the approach test.
            lsVec2 wallMotion = lsLerp(lsSub(s1.a, p0), lsSub(s1.b, q0), cp.fraction);
            lsVec2 relative = lsSub(d, wallMotion);
            lsVec2 n = lsAwayFromSegment(&at, c, relative);
            if (lsDot(relative, n) >= -LS_SLIDE_TOLERANCE * (lsLength(d) + lsLength(wallMotion)))
            {
                continue;
            }
            ctx.t = t;
            ctx.normal = n;
            ctx.hit = true;
        }
    }
    return ctx;
}

// Collide and slide: moves the centre along d, recording legs and contacts, at most LS_MAX_SLIDES contacts.
static void SlideMove(const lsCollisionWorld* cw, lsMoveResult* result, lsVec2 d, double radius, bool withMovers)
{
    lsVec2 normals[LS_MAX_SLIDES];
    int normalCount = 0;
    double tNow = 0.0;
    lsVec2 pos = result->position;
    for (int iteration = 0; iteration <= LS_MAX_SLIDES; ++iteration)
    {
        if (d.x == 0.0 && d.y == 0.0)
        {
            break;
        }
        lsSweepContext hit = lsSweepOnce(cw, pos, d, radius, tNow, withMovers);
        if (!hit.hit || iteration == LS_MAX_SLIDES)
        {
            if (!hit.hit)
            {
                pos = lsAdd(pos, d);
            }
            else
            {
                pos = lsMulAdd(pos, hit.t, d);
                result->contacts += 1;
                result->lastNormal = hit.normal;
            }
            // The end is always recorded (a push by a moving wall after a move of many contacts overwrites the
            // last leg): the robots' turns test the path against the other robots.
            lsAddLeg(result, pos);
            break;
        }
        pos = lsMulAdd(pos, hit.t, d);
        if (result->legCount < 5)
        {
            result->legs[result->legCount++] = pos;
        }
        result->contacts += 1;
        result->lastNormal = hit.normal;
        tNow += (1.0 - tNow) * hit.t;

        // Keep the tangential part of what is left; in a crease (it would push into an earlier contact) stop.
        lsVec2 rest = lsScale(1.0 - hit.t, d);
        double into = lsDot(rest, hit.normal);
        if (into < 0.0)
        {
            rest = lsMulSub(rest, into, hit.normal);
        }
        for (int i = 0; i < normalCount; ++i)
        {
            if (lsDot(rest, normals[i]) < -LS_SLIDE_TOLERANCE * lsLength(rest))
            {
                rest = lsV(0.0, 0.0);
            }
        }
        normals[normalCount++] = hit.normal;
        d = rest;
    }
    result->position = pos;
}

// Moving walls that reached the centre push it out on the side it was on at the start of the step (so a wall
// that swept over the whole circle within one step still pushes it forward, never leaves it behind).
static lsVec2 MoverPush(const lsCollisionWorld* cw, lsVec2 start, lsVec2 end, double radius, int* contacts)
{
    lsVec2 pos = end;
    for (int i = 0; i < cw->moverCount; ++i)
    {
        lsSegment s0 = cw->moversStart[i];
        lsSegment s1 = cw->moversEnd[i];
        lsAABB wallBox = lsAABB_Union(lsAABB_OfSegment(s0.a, s0.b), lsAABB_OfSegment(s1.a, s1.b));
        if (!lsAABB_Overlaps(wallBox, lsInflatedBox(start, pos, radius + LS_CONTACT_SKIN)))
        {
            continue;
        }
        lsSweepHit hits[2];
        bool crossed = lsSweepPointSegment(s0.a, s1.a, s0.b, s1.b, start, pos, hits) > 0;
        lsClosestPoint cp = lsClosestPointOnSegment(&s1, pos);
        if (!crossed && cp.distance >= radius + 0.5 * LS_CONTACT_SKIN)
        {
            continue;
        }
        int side0 = lsOrient(s0.a, s0.b, start);
        int side1 = lsOrient(s1.a, s1.b, pos);
        lsVec2 n;
        double depth;
        // On its side of the wall, away from the closest point; not when the centre lies on the wall after rounding
        // (the closest point is the centre itself, no direction: a robot orbiting a bar's pivot half its radius
        // ahead of a bar that turns by the same angle each step lands there, and stayed with the bar through it).
        if (!crossed && side1 != 0 && (side1 == side0 || side0 == 0) && cp.distance > 0.0)
        {
            n = lsNormalize(lsSub(pos, cp.point));
            depth = radius + LS_CONTACT_SKIN - cp.distance;
        }
        else
        {
            // The centre is on the wrong side (or on the wall): push across the wall's line to the start side.
            lsVec2 axis = lsNormalize(lsSub(s1.b, s1.a));
            n = lsLeftPerp(axis);
            if (side0 < 0)
            {
                n = lsNeg(n);
            }
            double signedDistance = lsDot(lsSub(pos, s1.a), n);
            depth = radius + LS_CONTACT_SKIN - signedDistance;
            if (axis.x == 0.0 && axis.y == 0.0)
            {
                n = lsNormalize(lsSub(pos, cp.point));
                depth = radius + LS_CONTACT_SKIN - cp.distance;
            }
        }
        if (depth > 0.0)
        {
            pos = lsMulAdd(pos, depth, n);
            *contacts += 1;
        }
    }
    return lsSub(pos, end);
}

lsMoveResult lsMoveCircle(const lsCollisionWorld* cw, lsVec2 start, lsVec2 displacement, double radius)
{
    LS_ASSERT(cw != NULL && radius > 0.0 && lsIsValidVec2(start) && lsIsValidVec2(displacement));
    lsMoveResult result = {0};
    result.position = start;
    result.legs[0] = start;
    result.legCount = 1;
    SlideMove(cw, &result, displacement, radius, true);

    // A moving wall that caught the circle pushes it; the push is itself a swept move against the static world.
    // Other circles do not stop a push (they are bodies that give way, by separation, on the next steps): walls
    // come first, so a body squeezed between a wall and another body ends overlapping the body, not the wall.
    lsVec2 push = MoverPush(cw, start, result.position, radius, &result.contacts);
    if (push.x != 0.0 || push.y != 0.0)
    {
        lsCollisionWorld staticOnly = *cw;
        staticOnly.moverCount = 0;
        staticOnly.circleCount = 0;
        SlideMove(&staticOnly, &result, push, radius, false);
        result.lastNormal = lsNormalize(push);
    }

    // Residual overlap with static walls and moving walls: a multi-constraint projection (see lsResolveOverlap).
    // Only solids: pushing out of another circle here could push into a wall.
    lsMoveBody body = lsCircleBody(radius);
    lsResolveOverlap(cw, &result, start, &body);
    return result;
}

typedef struct ClearanceContext
{
    const lsScene* scene;
    lsVec2 center;
    double best;
} ClearanceContext;

static void ClearanceSegment(void* context, const lsSegment* seg)
{
    ClearanceContext* ctx = context;
    ctx->best = lsFmin(ctx->best, lsClosestPointOnSegment(seg, ctx->center).distance);
}

static bool ClearanceQuery(void* context, lsHitKind kind, int index, int part)
{
    ClearanceContext* ctx = context;
    return lsForEachStaticSegment(ctx->scene, kind, index, part, ClearanceSegment, ctx);
}

double lsCollisionWorld_Clearance(const lsCollisionWorld* cw, lsVec2 center, double radius, double maxDistance)
{
    LS_ASSERT(cw != NULL);
    ClearanceContext ctx = {cw->scene, center, radius + maxDistance};
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, lsInflatedBox(center, center, radius + maxDistance), ClearanceQuery, &ctx);
    }
    for (int i = 0; i < cw->moverCount; ++i)
    {
        ClearanceSegment(&ctx, &cw->moversEnd[i]);
    }
    double best = ctx.best - radius;
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle)
        {
            best = lsFmin(best, lsDistance(center, cw->circles[i].center) - radius - cw->circles[i].radius);
        }
    }
    return lsFmin(best, maxDistance);
}
