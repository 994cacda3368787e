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

// The beams an autopilot decision reads, every stride-th of the scan (j = i / stride): offset[j] = sensorHeading +
// angle_i (so beam i's offset from a direction is offset[j] - angle, rounded as OpenRangeAll rounds it) and value[j]
// = its range (rangeMax for no return).
typedef struct Beams
{
    int n;
    double inverseStep; // 1 / the mean offset between consecutive entries (0 for one beam): where to start looking
    double offset[LS_AUTOPILOT_MAX_BEAMS];
    double value[LS_AUTOPILOT_MAX_BEAMS];
} Beams;

// Whether offset a (beam minus direction) is past the low end of the counted run of its wrap (0: a <= -pi, counted
// as a + 2 pi; 1: a in (-pi, pi]; 2: a > pi, counted as a - 2 pi), rounded as OpenRangeAll rounds it. It never turns
// false again as a grows.
static inline bool PastLow(double a, int wrap)
{
    if (wrap == 0)
    {
        return a + 2.0 * LS_PI > -0.175;
    }
    return wrap == 1 ? a > -0.175 : a > LS_PI && a - 2.0 * LS_PI > -0.175;
}

// The first j in [0, n) whose offset from angle is past the low end of wrap's run (n when none is), walked from the
// layout's guess, testing each beam on the way exactly: fl(offset - angle) never decreases as the offset grows, so
// when the offsets never decrease the answer is exact whatever the guess, and the guess makes it one or two tests.
static inline int FirstPast(const Beams* beams, double angle, int wrap)
{
    double target = -0.175 + (double)(wrap - 1) * 2.0 * LS_PI;
    double g = (angle + target - beams->offset[0]) * beams->inverseStep;
    int j = g > 0.0 ? (g < (double)beams->n ? (int)g : beams->n) : 0;
    while (j > 0 && PastLow(beams->offset[j - 1] - angle, wrap))
    {
        j -= 1;
    }
    while (j < beams->n && !PastLow(beams->offset[j] - angle, wrap))
    {
        j += 1;
    }
    return j;
}

// OpenRangeAll with the same sum, for beam angles that never decrease (every scan the lidar makes): beam j's offset
// a = offset[j] - angle grows with j, so the beams it counts (|a wrapped| < 0.175) form at most three runs, one per
// wrap (a <= -pi: a + 2 pi; a in (-pi, pi]; a > pi: a - 2 pi), in that order of j; each run is where the wrapped
// offset, which grows with a, lies in (-0.175, 0.175). Its start is found by a walk from the layout's guess and the
// run is summed in beam order as OpenRangeAll sums it. The first and last beams tell whether the outer runs exist.
static double OpenRange(const Beams* beams, double angle)
{
    int n = beams->n;
    if (n == 0)
    {
        return 0.0; // no beam (a scan always has one: for the analyser, which cannot tell)
    }
    double sum = 0.0;
    int count = 0;
    int j;
    if (beams->offset[0] - angle <= -LS_PI) // a run in the wrap a + 2 pi may exist
    {
        for (j = FirstPast(beams, angle, 0); j < n; ++j)
        {
            double a = beams->offset[j] - angle;
            if (!(a <= -LS_PI && a + 2.0 * LS_PI < 0.175))
            {
                break;
            }
            sum += beams->value[j];
            count += 1;
        }
    }
    // The run's end the same way (the first beam past 0.175 never comes back under it), then a sum alone.
    int lo = FirstPast(beams, angle, 1);
    double width = 0.35 * beams->inverseStep; // beams in 0.35 rad
    int hi = width < (double)(n - lo) ? lo + (int)width : n;
    while (hi > lo && !(beams->offset[hi - 1] - angle < 0.175))
    {
        hi -= 1;
    }
    while (hi < n && beams->offset[hi] - angle < 0.175)
    {
        hi += 1;
    }
    for (j = lo; j < hi && j < n; ++j) // (hi <= n: for the analyser)
    {
        sum += beams->value[j];
    }
    count += hi - lo;
    if (beams->offset[n - 1] - angle > LS_PI) // a run in the wrap a - 2 pi may exist
    {
        for (j = FirstPast(beams, angle, 2); j < n && beams->offset[j] - angle - 2.0 * LS_PI < 0.175; ++j)
        {
            sum += beams->value[j];
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

    // What the beams saw, in the robot frame (at most LS_AUTOPILOT_MAX_BEAMS of them, evenly spread): the points
    // that bound the corridors (obstacles and poison) and the targets (food and poison), each in beam order. And the
    // beams the openness reads, once per decision instead of once per direction.
    lsVec2 blocked[LS_AUTOPILOT_MAX_BEAMS];
    Seen targets[LS_AUTOPILOT_MAX_BEAMS];
    int blockedCount = 0, targetCount = 0;
    Beams beamsAll;
    Beams* beams = &beamsAll;
    beams->n = 0;
    bool sorted = true;
    int stride = (scan->count + LS_AUTOPILOT_MAX_BEAMS - 1) / LS_AUTOPILOT_MAX_BEAMS;
    lsRot heading = lsMakeRot(robot->angle);
    double sensorHeading = lsWrapAngle(lsRot_GetAngle(scan->pose.q) - robot->angle);
    double horizon = fmin(scan->rangeMax, def->maxSpeed * LS_AUTOPILOT_HORIZON_TIME + robot->radius);
    double width = 1.3 * robot->radius + 0.05;                // half-width of the corridor a body needs
    for (int i = 0, j = 0; i < scan->count; i += stride, ++j) // j = i / stride, below LS_AUTOPILOT_MAX_BEAMS
    {
        bool finite = isfinite(scan->ranges[i]);
        beams->offset[j] = sensorHeading + scan->angles[i];
        sorted &= j == 0 || beams->offset[j - 1] <= beams->offset[j]; // OpenRange needs offsets that never decrease
        beams->value[j] = finite ? scan->ranges[i] : scan->rangeMax;
        beams->n = j + 1;
        if (!finite || scan->kinds[i] == ls_hitNone)
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
        lsVec2 point = lsInvRotate(heading, lsSub(scan->points[i], robot->position));
        if (kind != 1)
        {
            blocked[blockedCount++] = point;
        }
        if (kind != 0)
        {
            targets[targetCount++] = (Seen){point, WrapNear(sensorHeading + scan->angles[i]), scan->ranges[i], kind};
        }
    }
    beams->inverseStep = 0.0;
    if (beams->n > 1 && beams->offset[beams->n - 1] > beams->offset[0])
    {
        beams->inverseStep = (double)(beams->n - 1) / (beams->offset[beams->n - 1] - beams->offset[0]);
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
        double open =
            (sorted ? OpenRange(beams, angle) : OpenRangeAll(scan, sensorHeading, angle, stride)) / scan->rangeMax;
        // Food and poison by the largest term, the corridor by the nearest blocking point: each the same whatever
        // the order, so the two kinds are read from their own lists.
        for (int j = 0; j < targetCount; ++j)
        {
            const Seen* s = &targets[j];
            if (s->kind == 1)
            {
                food = fmax(food, Gauss(WrapNear(angle - s->angle), 0.25) * (1.0 - s->range / scan->rangeMax));
            }
            else
            {
                poison = fmax(poison, Gauss(WrapNear(angle - s->angle), 0.35) * (1.0 - s->range / scan->rangeMax));
            }
        }
        for (int j = 0; j < blockedCount; ++j)
        {
            double along = lsDot(blocked[j], u);
            double lateral = fabs(lsCross(u, blocked[j]));
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
            if (d2 > 360.0 && visited >= 0x1p-10)
            {
                // The term exp(-d2 / 8) < exp(-45) < 2^-64 is under half an ulp of a sum of at least 2^-10
                // (2^-63): adding it would leave the sum's bits as they are, so its exp is not worth computing.
                continue;
            }
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
