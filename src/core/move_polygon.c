// lidarsim core: moving a convex polygon footprint with continuous collision: conservative advancement with GJK
// distances, sliding along contacts, residual overlap by the resolution of resolve.c.
#include "core/move_internal.h"

#include <stdlib.h>
#include <string.h>

static void AddObstacle(lsObstacles* obs, lsShapeProxy proxy)
{
    if (obs->count == obs->capacity)
    {
        int capacity = 2 * obs->capacity;
        lsShapeProxy* items = lsAlloc((size_t)capacity * sizeof(lsShapeProxy));
        memcpy(items, obs->items, (size_t)obs->count * sizeof(lsShapeProxy));
        if (obs->items != obs->local)
        {
            lsFree(obs->items, (size_t)obs->capacity * sizeof(lsShapeProxy));
        }
        obs->items = items;
        obs->capacity = capacity;
    }
    obs->items[obs->count++] = proxy;
}

static bool ObstacleQuery(void* context, lsHitKind kind, int index, int part)
{
    lsObstacles* obs = context;
    if (kind == ls_hitWall)
    {
        lsSegment seg = lsScene_WallSegment(obs->scene, index, part);
        AddObstacle(obs, lsProxyFromSegment(&seg));
    }
    else if (kind == ls_hitBox)
    {
        AddObstacle(obs, lsProxyFromBox(lsScene_Box(obs->scene, index)));
    }
    else if (kind == ls_hitPolygon)
    {
        AddObstacle(obs, lsProxyFromPolygon(lsScene_Polygon(obs->scene, index)));
    }
    return true;
}

// Everything in box that a body could touch: static candidates from the index, then circles and moving walls (where
// they end the step).
void lsGatherObstacles(lsObstacles* obs, const lsCollisionWorld* cw, lsAABB box, bool withMovers)
{
    obs->scene = cw->scene;
    obs->items = obs->local;
    obs->count = 0;
    obs->capacity = (int)(sizeof obs->local / sizeof obs->local[0]);
    if (cw->scene != NULL)
    {
        lsScene_QueryAABB(cw->scene, box, ObstacleQuery, obs);
    }
    obs->circlesBegin = obs->count;
    for (int i = 0; i < cw->circleCount; ++i)
    {
        if (i != cw->skipCircle && lsAABB_Overlaps(lsCircle_Bounds(&cw->circles[i]), box))
        {
            AddObstacle(obs, lsProxyFromCircle(&cw->circles[i]));
        }
    }
    obs->circlesEnd = obs->count;
    for (int i = 0; withMovers && i < cw->moverCount; ++i)
    {
        if (lsAABB_Overlaps(lsAABB_OfSegment(cw->moversEnd[i].a, cw->moversEnd[i].b), box))
        {
            AddObstacle(obs, lsProxyFromSegment(&cw->moversEnd[i]));
        }
    }
}

void lsReleaseObstacles(lsObstacles* obs)
{
    if (obs->items != obs->local)
    {
        lsFree(obs->items, (size_t)obs->capacity * sizeof(lsShapeProxy));
    }
}

// True when obstacle i is another body's circle, met by the footprint's bounding circle.
static bool IsBody(const lsObstacles* obs, int i) { return i >= obs->circlesBegin && i < obs->circlesEnd; }

// One conservative advancement pass along (d, turn) from (pos, angle); returns the fraction reached in [0, 1] and
// whether it stopped at a contact (with the contact normal pointing away from the obstacle).
double lsAdvance(const lsObstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double angle,
                 lsVec2 d, double turn, bool* contact, lsVec2* normal)
{
    *contact = false;
    double bound = lsLength(d) + fabs(turn) * reach;
    if (bound == 0.0 || obs->count == 0)
    {
        return 1.0;
    }
    // Each obstacle's allowed gap: the skin, or half of the present gap if it is already closer (sliding along it).
    double targets[256];
    int tracked = obs->count < 256 ? obs->count : 256;
    lsShapeProxy body = lsFootprintAt(points, count, pos, angle);
    lsShapeProxy disc = lsMakeProxy(&pos, 1, reach);
    for (int i = 0; i < tracked; ++i)
    {
        double dist = lsShapeDistance(&obs->items[i], IsBody(obs, i) ? &disc : &body, NULL).distance;
        targets[i] = lsFmin(LS_CONTACT_SKIN, 0.5 * dist);
    }
    double t = 0.0;
    for (int iteration = 0; iteration < 40; ++iteration)
    {
        body = lsFootprintAt(points, count, lsMulAdd(pos, t, d), angle + t * turn);
        double gap = HUGE_VAL;
        double advance = HUGE_VAL;
        lsVec2 n = {0.0, 0.0};
        lsVec2 center = lsMulAdd(pos, t, d);
        disc = lsMakeProxy(&center, 1, reach);
        for (int i = 0; i < obs->count; ++i)
        {
            lsDistanceOutput out = lsShapeDistance(&obs->items[i], IsBody(obs, i) ? &disc : &body, NULL);
            // targets[i] was set above for every i < tracked (cppcheck does not follow the guard).
            // cppcheck-suppress uninitvar
            double target = i < tracked ? targets[i] : 0.5 * LS_CONTACT_SKIN;
            if (out.overlap)
            {
                continue; // already overlapping (it started so): left to the residual resolution
            }
            if (out.distance - target < 0.05 * LS_CONTACT_SKIN)
            {
                // At contact: only an obstacle the body's closest point is moving towards stops the motion; one it
                // slides along or leaves does not (velocity of a body point: d + turn x (point - centre)).
                lsVec2 velocity = lsAdd(d, lsScale(turn, lsLeftPerp(lsSub(out.pointB, center))));
                if (lsDot(velocity, out.normal) >= -LS_SLIDE_TOLERANCE * bound)
                {
                    continue;
                }
            }
            // How fast the gap can close: the separating line's argument bounds it by the body's approach along
            // the normal plus what the turn adds at its farthest point. Bounding every obstacle by the whole speed
            // instead made a body sliding along a wall crawl (steps of the tiny gap over the whole motion).
            // The bounding circle turns in place.
            double rate = lsFmax(0.0, -lsDot(d, out.normal)) + (IsBody(obs, i) ? 0.0 : fabs(turn) * reach);
            if (!(rate > 0.0))
            {
                continue; // moving along it or away: it cannot come closer
            }
            if (out.distance - target < gap)
            {
                gap = out.distance - target;
                n = out.normal;
            }
            advance = lsFmin(advance, (out.distance - target) / rate);
        }
        if (isinf(gap))
        {
            return 1.0;
        }
        if (gap < 0.05 * LS_CONTACT_SKIN || iteration == 39)
        {
            *contact = true;
            *normal = n;
            return t;
        }
        if (t + advance >= 1.0)
        {
            return 1.0;
        }
        t += advance;
    }
    return t;
}

// Collide and slide for a footprint: conservative advancement along (d, turn) from pos, then along the contact
// tangent for the rest, up to LS_MAX_SLIDES contacts (recorded in result). Returns where it ended; *angle turns.
lsVec2 lsSlidePolygon(const lsObstacles* obs, const lsVec2* points, int count, double reach, lsVec2 pos, double* angle,
                      lsVec2 d, double turn, lsMoveResult* result)
{
    lsVec2 normals[LS_MAX_SLIDES];
    int normalCount = 0;
    for (int pass = 0; pass < LS_MAX_SLIDES; ++pass)
    {
        bool contact;
        lsVec2 n;
        double t = lsAdvance(obs, points, count, reach, pos, *angle, d, turn, &contact, &n);
        pos = lsMulAdd(pos, t, d);
        *angle += t * turn;
        if (!contact)
        {
            break;
        }
        result->contacts += 1;
        result->lastNormal = n;
        lsAddLeg(result, pos);
        lsVec2 rest = lsScale(1.0 - t, d);
        double into = lsDot(rest, n);
        if (into < 0.0)
        {
            rest = lsMulSub(rest, into, n);
        }
        for (int i = 0; i < normalCount; ++i)
        {
            if (lsDot(rest, normals[i]) < -LS_SLIDE_TOLERANCE * lsLength(rest))
            {
                rest = lsV(0.0, 0.0);
            }
        }
        normals[normalCount++] = n;
        // A turn that ran into something is given up after the first try: sliding keeps the translation only.
        turn = pass == 0 ? (1.0 - t) * turn : 0.0;
        d = rest;
    }
    return pos;
}

lsMoveResult lsMovePolygon(const lsCollisionWorld* cw, const lsVec2* points, int count, lsVec2 start, double angle,
                           lsVec2 displacement, double turn, double* newAngle)
{
    LS_ASSERT(cw != NULL && points != NULL && count >= 1 && count <= LS_MAX_POLYGON_VERTICES);
    LS_ASSERT(lsIsValidVec2(start) && lsIsValidVec2(displacement) && isfinite(turn) && newAngle != NULL);
    double reach = 0.0;
    for (int i = 0; i < count; ++i)
    {
        reach = lsFmax(reach, lsLength(points[i]));
    }
    lsMoveResult result = {0};
    result.legs[0] = start;
    result.legCount = 1;

    lsObstacles obs;
    // The slides leave the box of start -> start + displacement: gathered over that box alone, a slide deflected by
    // a slanted wall went through a wall beside the commanded line.
    lsGatherObstacles(&obs, cw, lsSlideBox(start, displacement, reach), true);
    double finalAngle = angle;
    lsVec2 pos = lsSlidePolygon(&obs, points, count, reach, start, &finalAngle, displacement, turn, &result);
    angle = finalAngle;
    lsReleaseObstacles(&obs);

    // Residual overlap (a moving wall or vehicle that came into the body, or rounding): EPA's minimum translation
    // vector, applied as a swept move against the static world so the push never crosses a wall.
    for (int pass = 0; pass < 3; ++pass)
    {
        lsGatherObstacles(&obs, cw, lsInflatedBox(pos, pos, reach + 2.0 * LS_CONTACT_SKIN), true);
        lsShapeProxy footprint = lsFootprintAt(points, count, pos, angle);
        lsShapeProxy disc = lsMakeProxy(&pos, 1, reach);
        lsVec2 push = {0.0, 0.0};
        for (int i = 0; i < obs.count; ++i)
        {
            // The obstacle is A and the body B, so normals point from the obstacle to the body.
            const lsShapeProxy* shape = IsBody(&obs, i) ? &disc : &footprint;
            lsDistanceOutput out = lsShapeDistance(&obs.items[i], shape, NULL);
            if (out.overlap)
            {
                lsPenetration pen = lsShapePenetration(&obs.items[i], shape);
                push = lsMulAdd(push, pen.depth + LS_CONTACT_SKIN, pen.normal);
            }
            else if (out.distance < 0.25 * LS_CONTACT_SKIN)
            {
                push = lsMulAdd(push, LS_CONTACT_SKIN - out.distance, out.normal);
            }
        }
        lsReleaseObstacles(&obs);
        if (push.x == 0.0 && push.y == 0.0)
        {
            break;
        }
        result.contacts += 1;
        result.lastNormal = lsNormalize(push);
        lsCollisionWorld staticOnly = *cw;
        staticOnly.moverCount = 0;
        staticOnly.circleCount = 0;
        lsGatherObstacles(&obs, &staticOnly, lsInflatedBox(pos, lsAdd(pos, push), reach + 2.0 * LS_CONTACT_SKIN),
                          false);
        bool contact;
        lsVec2 n;
        double t = lsAdvance(&obs, points, count, reach, pos, angle, push, 0.0, &contact, &n);
        lsReleaseObstacles(&obs);
        pos = lsMulAdd(pos, t, push);
    }
    // Those pushes, each out of one solid alone, can push into the next one: a door closing onto a body standing in
    // its doorway pushed it into the wall's end, step after step. What overlap is left is resolved against all the
    // solids at once, as for a circle: the nearest free place (lsResolveOverlap), reached by a swept move.
    result.position = pos;
    lsMoveBody body = {points, count, angle, reach, LS_CONTACT_SKIN};
    lsResolveOverlap(cw, &result, start, &body);
    pos = result.position;
    result.position = pos;
    lsAddLeg(&result, pos);
    *newAngle = lsWrapAngle(angle);
    return result;
}
