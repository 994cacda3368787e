// lidarsim core: the autopilot. It sees only the robot's own lidar scan (ranges, hit points, what each beam hit)
// and picks a direction by the free corridor a body of its width has along it, so it wanders the default world,
// goes for food it sees, keeps away from poison, and backs out when it has stopped making progress.
#include "core/autopilot.h"
#include "lidarsim/sim.h"

#define LS_AUTOPILOT_DIRECTIONS 41
#define LS_AUTOPILOT_MAX_BEAMS 360
#define LS_AUTOPILOT_STUCK_WINDOW 1.5 // seconds between progress checks
#define LS_AUTOPILOT_ESCAPE_TIME 0.6  // seconds of backing up and turning
#define LS_AUTOPILOT_HORIZON_TIME 2.0 // look this many seconds of full speed ahead

lsAutopilot lsMakeAutopilot(uint64_t seed)
{
    lsAutopilot a = {0};
    a.rng = lsMakeRng(seed);
    a.checkTime = -1.0;
    a.escapeUntil = -1.0;
    a.escapeTurn = 1.0;
    return a;
}

// Weights of the direction score's terms (clearance within the horizon counts 1).
#define LS_AUTOPILOT_OPEN_WEIGHT 0.4 // openness: the beams' reach around the direction, over the lidar's range
#define LS_AUTOPILOT_WANDER_WEIGHT 0.15
#define LS_AUTOPILOT_TRAIL_WEIGHT 0.4 // novelty: penalty for heading where it has been lately
#define LS_AUTOPILOT_TRAIL_SIGMA 2.0  // metres: how far a remembered position's influence reaches
#define LS_AUTOPILOT_TRAIL_PERIOD 1.0 // seconds between remembered positions

// The mean range (no return: rangeMax) of the beams within 10 degrees of direction angle (robot frame): every
// stride-th beam whose wrapped offset sensorHeading + angle_i - angle is under 0.175 in size, summed in beam order.
static double OpenRangeAll(const lsScan* scan, double sensorHeading, double angle, int stride)
{
    double sum = 0.0;
    int count = 0;
    for (int i = 0; i < scan->count; i += stride)
    {
        double a = sensorHeading + scan->angles[i] - angle;
        a = a > LS_PI ? a - 2.0 * LS_PI : (a <= -LS_PI ? a + 2.0 * LS_PI : a);
        if (fabs(a) < 0.175)
        {
            sum += isfinite(scan->ranges[i]) ? scan->ranges[i] : scan->rangeMax;
            count += 1;
        }
    }
    return count > 0 ? sum / count : 0.0;
}

// Beam i's offset sensorHeading + angle_i - angle wrapped as OpenRangeAll wraps it (into *wrapped), and which wrap
// was taken (+2 pi, none, -2 pi: 0, 1, 2). When the beam angles never decrease, (wrap, offset) grows with i.
static inline int OffsetKey(const lsScan* scan, double sensorHeading, double angle, int i, double* wrapped)
{
    double a = sensorHeading + scan->angles[i] - angle;
    if (a > LS_PI)
    {
        *wrapped = a - 2.0 * LS_PI;
        return 2;
    }
    if (a <= -LS_PI)
    {
        *wrapped = a + 2.0 * LS_PI;
        return 0;
    }
    *wrapped = a;
    return 1;
}

// Whether beam i is past (wrap, limit): in a larger wrap, or in the same wrap with an offset >= limit (atLeast) or
// > limit (!atLeast).
static inline bool IsPast(const lsScan* scan, double sensorHeading, double angle, int i, int wrap, double limit,
                          bool atLeast)
{
    double a;
    int w = OffsetKey(scan, sensorHeading, angle, i, &a);
    return w > wrap || (w == wrap && (atLeast ? a >= limit : a > limit));
}

// The first of the beams j * stride (j in [0, n)) past (wrap, limit), n when none is. (wrap, offset) grows with j,
// so the answer is where IsPast turns true: found by walking from where evenly spaced beams put it (the scan's
// layout), testing each beam on the way exactly; usually one or two tests, and right whatever the guess.
static int FirstPast(const lsScan* scan, double sensorHeading, double angle, int stride, int n, int wrap, double limit,
                     bool atLeast)
{
    // The beam's unwrapped offset at which this wrap ends or the limit is reached, whichever comes first.
    double threshold =
        wrap == 0 ? fmin(limit - 2.0 * LS_PI, -LS_PI) : (wrap == 1 ? fmin(limit, LS_PI) : limit + 2.0 * LS_PI);
    double base = sensorHeading + scan->layout.angleMin - angle;
    double step = (double)stride * scan->layout.angleIncrement;
    double guess = step > 0.0 ? ceil((threshold - base) / step) : 0.0;
    int j = guess > 0.0 ? (guess < (double)n ? (int)guess : n) : 0;
    while (j > 0 && IsPast(scan, sensorHeading, angle, (j - 1) * stride, wrap, limit, atLeast))
    {
        j -= 1;
    }
    while (j < n && !IsPast(scan, sensorHeading, angle, j * stride, wrap, limit, atLeast))
    {
        j += 1;
    }
    return j;
}

// OpenRangeAll with the same sum, for beam angles that never decrease (every scan the lidar makes): the offsets then
// grow with the beam index within each wrap, so the beams under 0.175 form at most three runs (one per wrap, in
// beam order), whose ends FirstPast finds in a few tests instead of testing every beam for each of the 41 directions.
static double OpenRange(const lsScan* scan, double sensorHeading, double angle, int stride, bool sorted)
{
    if (!sorted)
    {
        return OpenRangeAll(scan, sensorHeading, angle, stride);
    }
    int n = (scan->count + stride - 1) / stride;
    double sum = 0.0;
    int count = 0;
    for (int wrap = 0; wrap < 3; ++wrap)
    {
        int lo = FirstPast(scan, sensorHeading, angle, stride, n, wrap, -0.175, false);
        int hi = FirstPast(scan, sensorHeading, angle, stride, n, wrap, 0.175, true);
        for (int j = lo; j < hi; ++j)
        {
            int i = j * stride;
            sum += isfinite(scan->ranges[i]) ? scan->ranges[i] : scan->rangeMax;
            count += 1;
        }
    }
    return count > 0 ? sum / count : 0.0;
}

typedef struct Seen
{
    lsVec2 point; // robot frame
    double angle; // robot frame, radians
    double range;
    int kind; // 0 obstacle, 1 food, 2 poison
} Seen;

static double Gauss(double x, double sigma) { return exp(-0.5 * (x * x) / (sigma * sigma)); }

// Wraps an angle within (-3 pi, 3 pi) into (-pi, pi] without a division (lsWrapAngle's remainder() is slow, and
// this runs for every beam).
static double WrapNear(double a)
{
    if (a > LS_PI)
    {
        return a - 2.0 * LS_PI;
    }
    return a <= -LS_PI ? a + 2.0 * LS_PI : a;
}

lsControl lsAutopilot_Decide(lsAutopilot* autopilot, const lsScan* scan, const lsScene* scene, const lsRobotDef* def,
                             const lsRobotState* robot, double time, bool newScan)
{
    LS_ASSERT(autopilot != NULL && scan != NULL && scene != NULL && def != NULL && robot != NULL);
    lsAutopilot* ap = autopilot;

    // Stuck detector: too little progress over the window means backing up and turning for a moment.
    if (ap->checkTime < 0.0)
    {
        ap->checkPosition = robot->position;
        ap->checkTime = time;
    }
    else if (time - ap->checkTime >= LS_AUTOPILOT_STUCK_WINDOW)
    {
        if (lsDistance(robot->position, ap->checkPosition) < 0.25 * robot->radius && time >= ap->escapeUntil)
        {
            ap->escapeUntil = time + LS_AUTOPILOT_ESCAPE_TIME;
            ap->escapeTurn = ap->chosen >= 0.0 ? 1.0 : -1.0;
        }
        ap->checkPosition = robot->position;
        ap->checkTime = time;
    }
    if (time < ap->escapeUntil)
    {
        ap->v = -0.3 * def->maxSpeed;
        ap->w = ap->escapeTurn * 0.8 * def->maxTurnRate;
        return lsMakeManualControl(ap->v, ap->w);
    }
    if (!newScan || scan->count == 0)
    {
        return lsMakeManualControl(ap->v, ap->w);
    }

    // The trail: one remembered position per LS_AUTOPILOT_TRAIL_PERIOD seconds, the oldest overwritten.
    if (ap->trailCount == 0 || time - ap->trailTime >= LS_AUTOPILOT_TRAIL_PERIOD)
    {
        ap->trail[ap->trailNext] = robot->position;
        ap->trailNext = (ap->trailNext + 1) % LS_AUTOPILOT_TRAIL;
        ap->trailCount = ap->trailCount < LS_AUTOPILOT_TRAIL ? ap->trailCount + 1 : LS_AUTOPILOT_TRAIL;
        ap->trailTime = time;
    }

    // What the beams saw, in the robot frame (at most LS_AUTOPILOT_MAX_BEAMS of them, evenly spread).
    Seen seen[LS_AUTOPILOT_MAX_BEAMS + 1];
    int seenCount = 0;
    int stride = (scan->count + LS_AUTOPILOT_MAX_BEAMS - 1) / LS_AUTOPILOT_MAX_BEAMS;
    lsRot heading = lsMakeRot(robot->angle);
    double sensorHeading = lsWrapAngle(lsRot_GetAngle(scan->pose.q) - robot->angle);
    double horizon = fmin(scan->rangeMax, def->maxSpeed * LS_AUTOPILOT_HORIZON_TIME + robot->radius);
    double width = 1.3 * robot->radius + 0.05; // half-width of the corridor a body needs
    for (int i = 0; i < scan->count && seenCount < LS_AUTOPILOT_MAX_BEAMS; i += stride)
    {
        if (!isfinite(scan->ranges[i]) || scan->kinds[i] == ls_hitNone)
        {
            continue;
        }
        int kind = 0;
        if (scan->kinds[i] == ls_hitTarget)
        {
            kind = lsScene_TargetKind(scene, scan->indices[i]) == ls_food ? 1 : 2;
        }
        if (kind == 0 && scan->ranges[i] > horizon + width)
        {
            continue; // an obstacle beyond the horizon cannot shorten any corridor
        }
        Seen* s = &seen[seenCount++];
        s->point = lsInvRotate(heading, lsSub(scan->points[i], robot->position));
        s->angle = WrapNear(sensorHeading + scan->angles[i]);
        s->range = scan->ranges[i];
        s->kind = kind;
    }

    bool sorted = true;
    for (int i = stride; i < scan->count && sorted; i += stride)
    {
        sorted = scan->angles[i - stride] <= scan->angles[i];
    }

    // The wander bias: a slow random walk, pulled back towards straight ahead.
    ap->wander = fmin(fmax(0.97 * ap->wander + 0.25 * lsRng_Gaussian(&ap->rng), -0.5 * LS_PI), 0.5 * LS_PI);

    // Candidates cover what the lidar sees (all around for a 360-degree lidar, so it can decide to turn back).
    double span = fmin(0.5 * (scan->layout.angleMax - scan->layout.angleMin) + 0.1, LS_PI);
    double bestScore = -HUGE_VAL, bestAngle = 0.0, bestClearance = 0.0, aheadClearance = horizon;
    for (int k = 0; k < LS_AUTOPILOT_DIRECTIONS; ++k)
    {
        double angle = -span + 2.0 * span * (double)k / (double)(LS_AUTOPILOT_DIRECTIONS - 1);
        angle = WrapNear(angle + sensorHeading);
        lsVec2 u = lsDirection(angle);
        double clearance = horizon;
        double food = 0.0, poison = 0.0;
        // Openness: how far the beams near this direction reach (an open corridor beyond the horizon is where
        // there is more to explore than a bay that merely has room for a few metres).
        double open = OpenRange(scan, sensorHeading, angle, stride, sorted) / scan->rangeMax;
        for (int j = 0; j < seenCount; ++j)
        {
            const Seen* s = &seen[j];
            if (s->kind == 1)
            {
                food = fmax(food, Gauss(WrapNear(angle - s->angle), 0.25) * (1.0 - s->range / scan->rangeMax));
                continue; // food is to be touched, not avoided
            }
            if (s->kind == 2)
            {
                poison = fmax(poison, Gauss(WrapNear(angle - s->angle), 0.35) * (1.0 - s->range / scan->rangeMax));
            }
            double along = lsDot(s->point, u);
            double lateral = fabs(lsCross(u, s->point));
            if (along > 0.0 && lateral < width)
            {
                clearance = fmin(clearance, fmax(along - sqrt(width * width - lateral * lateral), 0.0));
            }
        }
        // Novelty: how close the place this direction leads to (as far as the corridor allows, up to the
        // horizon) is to where it has been lately.
        lsVec2 ahead = lsAdd(robot->position, lsRotate(heading, lsScale(fmax(clearance, robot->radius), u)));
        double visited = 0.0;
        for (int t = 0; t < ap->trailCount; ++t)
        {
            double d2 = lsDistanceSquared(ahead, ap->trail[t]);
            visited += exp(-d2 / (2.0 * LS_AUTOPILOT_TRAIL_SIGMA * LS_AUTOPILOT_TRAIL_SIGMA));
            if (visited >= 4.0)
            {
                break; // the terms are not negative and the score takes at most 4: the rest cannot change it
            }
        }
        double score = clearance / horizon + LS_AUTOPILOT_OPEN_WEIGHT * open - 0.2 * fabs(angle) / LS_PI +
                       LS_AUTOPILOT_WANDER_WEIGHT * cos(angle - ap->wander) -
                       LS_AUTOPILOT_TRAIL_WEIGHT * fmin(visited, 4.0) / 4.0 + 1.2 * food - 1.0 * poison;
        if (clearance < 0.5 * robot->radius)
        {
            score -= 2.0; // a direction it cannot move in at all
        }
        if (score > bestScore)
        {
            bestScore = score;
            bestAngle = angle;
            bestClearance = clearance;
        }
        if (k == LS_AUTOPILOT_DIRECTIONS / 2)
        {
            aheadClearance = clearance;
        }
    }
    ap->chosen = bestAngle;
    if (bestClearance < 0.5 * robot->radius)
    {
        // Boxed in (no candidate it can see has room): turn in place until a way opens up, keeping the direction
        // of a turn already begun (with a narrow lidar the best side flips as the view turns).
        double turn = ap->v == 0.0 && ap->w != 0.0 ? ap->w : (bestAngle != 0.0 ? bestAngle : ap->escapeTurn);
        ap->v = 0.0;
        ap->w = turn > 0.0 ? def->maxTurnRate : -def->maxTurnRate;
        return lsMakeManualControl(ap->v, ap->w);
    }

    // Turn towards the chosen direction; drive only as fast as the corridor ahead (and the turn) allows.
    double w = fmin(fmax(3.0 * bestAngle, -def->maxTurnRate), def->maxTurnRate);
    double room = fmin(aheadClearance, bestClearance);
    double stopping = def->maxSpeed * def->maxSpeed / (2.0 * def->maxAccel) + 0.1 * robot->radius;
    double v = def->maxSpeed * fmin(fmax((room - 0.1 * robot->radius) / (stopping + 0.5 * robot->radius), 0.0), 1.0);
    v *= fmax(cos(bestAngle), 0.0);
    ap->v = v;
    ap->w = w;
    return lsMakeManualControl(v, w);
}
