// lidarsim core: the autopilot. It sees only the robot's own lidar scan (ranges, hit points, what each beam hit)
// and picks a direction by the free corridor a body of its width has along it, so it wanders the default world,
// goes for food it sees, keeps away from poison, and backs out when it has stopped making progress.
#include "core/autopilot.h"
#include "lidarsim/sim.h"

#include <string.h>

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

lsAutopilotUndo lsAutopilot_SaveUndo(const lsAutopilot* autopilot)
{
    lsAutopilotUndo undo;
    memcpy(undo.head, autopilot, sizeof undo.head);
    undo.entry = autopilot->trail[autopilot->trailNext];
    return undo;
}

void lsAutopilot_Undo(lsAutopilot* autopilot, const lsAutopilotUndo* undo)
{
    memcpy(autopilot, undo->head, sizeof undo->head);
    autopilot->trail[autopilot->trailNext] = undo->entry; // trailNext as it was
}

// Weights of the direction score's terms (clearance within the horizon counts 1).
#define LS_AUTOPILOT_OPEN_WEIGHT 0.4 // openness: the beams' reach around the direction, over the lidar's range
#define LS_AUTOPILOT_WANDER_WEIGHT 0.15
#define LS_AUTOPILOT_TRAIL_WEIGHT 0.4 // novelty: penalty for heading where it has been lately
#define LS_AUTOPILOT_TRAIL_SIGMA 2.0  // metres: how far a remembered position's influence reaches
#define LS_AUTOPILOT_TRAIL_PERIOD 1.0 // seconds between remembered positions

// The beams an autopilot decision reads, every stride-th of the scan (j = i / stride), read where they lie: beam j's
// offset is sensorHeading + angle_i, its angle taken from the layout (the value scan->angles holds, computed the same
// way, without loading it), and its value its range (rangeMax for no return). A decision reads few of them (the ends
// and insides of the runs of the directions it scores), so it builds no table.
typedef struct Beams
{
    lsScanLayout layout;
    const double* ranges;
    int stride;
    int n;
    double sensorHeading;
    double rangeMax;
    double inverseStep; // 1 / the mean offset between consecutive entries (0 for one beam): where to start looking
} Beams;

static inline double Offset(const Beams* beams, int j)
{
    return beams->sensorHeading + lsScanLayout_Angle(&beams->layout, j * beams->stride);
}

static inline double Value(const Beams* beams, int j)
{
    double r = beams->ranges[(ptrdiff_t)j * beams->stride];
    return isfinite(r) ? r : beams->rangeMax;
}

// Whether offset a (beam minus direction) is past the low end of the counted run of its wrap (0: a <= -pi, counted
// as a + 2 pi; 1: a in (-pi, pi]; 2: a > pi, counted as a - 2 pi), rounded as OpenRange wraps it. It never turns
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
    double g = (angle + target - Offset(beams, 0)) * beams->inverseStep;
    int j = g > 0.0 ? (g < (double)beams->n ? (int)g : beams->n) : 0;
    while (j > 0 && PastLow(Offset(beams, j - 1) - angle, wrap))
    {
        j -= 1;
    }
    while (j < beams->n && !PastLow(Offset(beams, j) - angle, wrap))
    {
        j += 1;
    }
    return j;
}

// The mean range (no return: rangeMax) of the beams within 10 degrees of direction angle (robot frame): every
// stride-th beam whose wrapped offset sensorHeading + angle_i - angle is under 0.175 in size, summed in beam order.
// The layout's angles never decrease (its increment is not negative) and rounding never reverses an order: beam
// j's offset a = Offset(j) - angle grows with j, so the beams it counts (|a wrapped| < 0.175) form at most three runs,
// one per wrap (a <= -pi: a + 2 pi; a in (-pi, pi]; a > pi: a - 2 pi), in that order of j; each run is where the
// wrapped offset, which grows with a, lies in (-0.175, 0.175). Its start is found by a walk from the layout's guess and
// the run is summed in beam order. The first and last beams tell whether the outer runs exist.
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
    if (Offset(beams, 0) - angle <= -LS_PI) // a run in the wrap a + 2 pi may exist
    {
        for (j = FirstPast(beams, angle, 0); j < n; ++j)
        {
            double a = Offset(beams, j) - angle;
            if (!(a <= -LS_PI && a + 2.0 * LS_PI < 0.175))
            {
                break;
            }
            sum += Value(beams, j);
            count += 1;
        }
    }
    // The run's end the same way (the first beam past 0.175 never comes back under it), then a sum alone.
    int lo = FirstPast(beams, angle, 1);
    double width = 0.35 * beams->inverseStep; // beams in 0.35 rad
    int hi = width < (double)(n - lo) ? lo + (int)width : n;
    while (hi > lo && !(Offset(beams, hi - 1) - angle < 0.175))
    {
        hi -= 1;
    }
    while (hi < n && Offset(beams, hi) - angle < 0.175)
    {
        hi += 1;
    }
    for (j = lo; j < hi && j < n; ++j) // (hi <= n: for the analyser)
    {
        sum += Value(beams, j);
    }
    count += hi - lo;
    if (Offset(beams, n - 1) - angle > LS_PI) // a run in the wrap a - 2 pi may exist
    {
        for (j = FirstPast(beams, angle, 2); j < n && Offset(beams, j) - angle - 2.0 * LS_PI < 0.175; ++j)
        {
            sum += Value(beams, j);
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

// How far a body of half-width `width` can go along unit direction u (robot frame) before the nearest blocking
// point, up to horizon: the minimum over the points, the same whatever their order.
static double Clearance(const lsVec2* blocked, int count, lsVec2 u, double horizon, double width)
{
    double clearance = horizon;
    for (int j = 0; j < count; ++j)
    {
        double along = lsDot(blocked[j], u);
        double lateral = fabs(lsCross(u, blocked[j]));
        if (along > 0.0 && lateral < width)
        {
            clearance = lsFmin(clearance, lsFmax(along - sqrt(width * width - lateral * lateral), 0.0));
        }
    }
    return clearance;
}

// Novelty: how close the place `ahead` (world frame) is to where the robot has been lately, the trail's Gaussian
// terms summed up to the score's cap.
static double Visited(const lsAutopilot* ap, lsVec2 ahead)
{
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
    return visited;
}

// One candidate direction of a decision and the terms of its score known so far.
typedef struct Candidate
{
    double angle; // robot frame, radians
    double food, poison;
    double straight;    // the penalty for turning away from straight ahead, 0.2 |angle| / pi
    double wanderBound; // at least the wander term's cos(angle - wander)
    double open;        // the beams' mean reach around it over the lidar's range (once known)
    lsVec2 u;           // unit vector along it (once the clearance is known)
    double clearance;   // how far a body can go along it, metres (once known)
    double bound;       // above its score, from the terms known so far (ScoreBound)
} Candidate;

// At least a candidate's score given its openness and clearance terms (at most 1 each when not known yet): the score
// without the trail penalty (not negative) and with wanderBound for the wander term, plus a margin for rounding. The
// score and the bound each round seven additions of terms under `size` in sum, so they stray from their exact sums by
// under 1e-15 size; the margin, 1e-9 size, is far above that.
static double ScoreBound(const Candidate* c, double clear, double open)
{
    double size = 2.0 + fabs(open) + fabs(c->food) + fabs(c->poison);
    return clear + LS_AUTOPILOT_OPEN_WEIGHT * open - c->straight + LS_AUTOPILOT_WANDER_WEIGHT * c->wanderBound +
           1.2 * c->food - 1.0 * c->poison + 1e-9 * size;
}

// At least cos(x) for x in (-3 pi, 3 pi), and under 0.025 above it: the Taylor series to x^8 (cut after a positive
// term, it bounds cos from above everywhere) at x wrapped into (-pi, pi], where it is largest, 0.024 too high, at pi.
static double CosBound(double x)
{
    double y = WrapNear(x);
    double y2 = y * y;
    double p = 1.0 + y2 * (-1.0 / 2.0 + y2 * (1.0 / 24.0 + y2 * (-1.0 / 720.0 + y2 * (1.0 / 40320.0))));
    return p < 1.0 ? p : 1.0;
}

// The decision's shared inputs.
typedef struct Decision
{
    const lsAutopilot* ap;
    const lsScan* scan;
    const lsRobotState* robot;
    const Beams* beams;
    lsRot heading;
    double horizon, width;
    const lsVec2* blocked;
    int blockedCount;
} Decision;

// Fills in a candidate's openness: how far the beams near its direction reach (an open corridor beyond the horizon
// is where there is more to explore than a bay that merely has room for a few metres).
static void FindOpen(const Decision* d, Candidate* c)
{
    c->open = OpenRange(d->beams, c->angle) / d->scan->rangeMax;
    c->bound = ScoreBound(c, 1.0, c->open);
}

// Fills in a candidate's clearance (its openness known).
static void FindClearance(const Decision* d, Candidate* c)
{
    c->u = lsDirection(c->angle);
    c->clearance = Clearance(d->blocked, d->blockedCount, c->u, d->horizon, d->width);
    c->bound = ScoreBound(c, c->clearance / d->horizon, c->open);
    if (c->clearance < 0.5 * d->robot->radius)
    {
        c->bound -= 2.0; // as the score is
    }
}

// A candidate's score (its openness and clearance known).
static double Score(const Decision* d, const Candidate* c)
{
    // Novelty: how close the place this direction leads to (as far as the corridor allows, up to the horizon) is to
    // where it has been lately.
    const lsRobotState* robot = d->robot;
    lsVec2 ahead = lsAdd(robot->position, lsRotate(d->heading, lsScale(lsFmax(c->clearance, robot->radius), c->u)));
    double visited = Visited(d->ap, ahead);
    double score = c->clearance / d->horizon + LS_AUTOPILOT_OPEN_WEIGHT * c->open - c->straight +
                   LS_AUTOPILOT_WANDER_WEIGHT * cos(c->angle - d->ap->wander) -
                   LS_AUTOPILOT_TRAIL_WEIGHT * lsFmin(visited, 4.0) / 4.0 + 1.2 * c->food - 1.0 * c->poison;
    if (c->clearance < 0.5 * robot->radius)
    {
        score -= 2.0; // a direction it cannot move in at all
    }
    return score;
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
    // that bound the corridors (obstacles and poison) and the targets (food and poison), each in beam order; the
    // largest value a beam gives the openness.
    lsVec2 blocked[LS_AUTOPILOT_MAX_BEAMS];
    Seen targets[LS_AUTOPILOT_MAX_BEAMS];
    int blockedCount = 0, targetCount = 0;
    int stride = (scan->count + LS_AUTOPILOT_MAX_BEAMS - 1) / LS_AUTOPILOT_MAX_BEAMS;
    lsRot heading = lsMakeRot(robot->angle);
    double sensorHeading = lsWrapAngle(lsRot_GetAngle(scan->pose.q) - robot->angle);
    double horizon = lsFmin(scan->rangeMax, def->maxSpeed * LS_AUTOPILOT_HORIZON_TIME + robot->radius);
    double width = 1.3 * robot->radius + 0.05; // half-width of the corridor a body needs
    double reach = horizon + width;            // an obstacle beyond it cannot shorten any corridor
    const double* ranges = scan->ranges;
    const lsHitKind* kinds = scan->kinds;
    double valueMax = scan->rangeMax;
    for (int i = 0; i < scan->count; i += stride)
    {
        double range = ranges[i];
        if (!isfinite(range))
        {
            continue;
        }
        valueMax = range > valueMax ? range : valueMax;
        if (kinds[i] == ls_hitNone)
        {
            continue;
        }
        int kind = 0;
        if (kinds[i] == ls_hitTarget)
        {
            kind = lsScene_TargetKind(scene, scan->indices[i]) == ls_food ? 1 : 2;
        }
        if (kind == 0 && range > reach)
        {
            continue;
        }
        lsVec2 point = lsInvRotate(heading, lsSub(scan->points[i], robot->position));
        if (kind != 1)
        {
            blocked[blockedCount++] = point;
        }
        if (kind != 0)
        {
            targets[targetCount++] =
                (Seen){point, WrapNear(sensorHeading + lsScanLayout_Angle(&scan->layout, i)), range, kind};
        }
    }
    Beams beams = {.layout = scan->layout,
                   .ranges = ranges,
                   .stride = stride,
                   .n = (scan->count + stride - 1) / stride,
                   .sensorHeading = sensorHeading,
                   .rangeMax = scan->rangeMax};
    int n = beams.n;
    if (n > 1 && Offset(&beams, n - 1) > Offset(&beams, 0))
    {
        beams.inverseStep = (double)(n - 1) / (Offset(&beams, n - 1) - Offset(&beams, 0));
    }
    Decision d = {ap, scan, robot, &beams, heading, horizon, width, blocked, blockedCount};

    // The wander bias: a slow random walk, pulled back towards straight ahead.
    ap->wander = lsFmin(lsFmax(0.97 * ap->wander + 0.25 * lsRng_Gaussian(&ap->rng), -0.5 * LS_PI), 0.5 * LS_PI);

    // Candidates cover what the lidar sees (all around for a 360-degree lidar, so it can decide to turn back). Food
    // and poison by the largest term (the same whatever the order). The rest of a score only where the candidate may
    // be the best: its bound (ScoreBound) starts with the openness at the beams' largest value, the clearance term
    // at 1 and CosBound for the wander term, and is tightened by its openness, then by its clearance; once it is
    // below the best score so far the rest of that score is skipped (the trail's terms, the dearest part, come
    // last). Every candidate skipped scores below the best, and those scored are compared with ties to the smaller
    // k, so the choice is the first best of scoring all of them in turn.
    double span = lsFmin(0.5 * (scan->layout.angleMax - scan->layout.angleMin) + 0.1, LS_PI);
    double openMax = valueMax / scan->rangeMax; // no candidate's openness exceeds it (but for rounding)
    Candidate candidates[LS_AUTOPILOT_DIRECTIONS];
    int first = 0;
    for (int k = 0; k < LS_AUTOPILOT_DIRECTIONS; ++k)
    {
        Candidate* c = &candidates[k];
        double angle = -span + 2.0 * span * (double)k / (double)(LS_AUTOPILOT_DIRECTIONS - 1);
        *c = (Candidate){.angle = WrapNear(angle + sensorHeading)};
        for (int j = 0; j < targetCount; ++j)
        {
            const Seen* s = &targets[j];
            if (s->kind == 1)
            {
                c->food =
                    lsFmax(c->food, Gauss(WrapNear(c->angle - s->angle), 0.25) * (1.0 - s->range / scan->rangeMax));
            }
            else
            {
                c->poison =
                    lsFmax(c->poison, Gauss(WrapNear(c->angle - s->angle), 0.35) * (1.0 - s->range / scan->rangeMax));
            }
        }
        c->straight = 0.2 * fabs(c->angle) / LS_PI;
        c->wanderBound = CosBound(c->angle - ap->wander);
        c->bound = ScoreBound(c, 1.0, openMax);
        first = c->bound > candidates[first].bound ? k : first;
    }
    // They are visited from the largest first bound outwards, the neighbour with the larger bound next: without
    // targets that bound falls away from its peak on both sides, so a high best score comes early and skips most.
    int ahead = LS_AUTOPILOT_DIRECTIONS / 2;
    double bestScore = -HUGE_VAL;
    int best = LS_AUTOPILOT_DIRECTIONS;
    bool aheadKnown = false;
    int lower = first - 1, upper = first + 1;
    for (int step = 0; step < LS_AUTOPILOT_DIRECTIONS; ++step)
    {
        int k = first;
        if (step > 0)
        {
            bool takeLower =
                upper == LS_AUTOPILOT_DIRECTIONS || (lower >= 0 && candidates[lower].bound > candidates[upper].bound);
            k = takeLower ? lower-- : upper++;
        }
        Candidate* c = &candidates[k];
        if (c->bound < bestScore)
        {
            continue;
        }
        FindOpen(&d, c);
        if (c->bound < bestScore)
        {
            continue;
        }
        FindClearance(&d, c);
        aheadKnown |= k == ahead;
        if (c->bound < bestScore)
        {
            continue;
        }
        double score = Score(&d, c);
        if (score > bestScore || (score == bestScore && k < best))
        {
            bestScore = score;
            best = k;
        }
    }
    // The clearance straight ahead sets the speed.
    double aheadClearance =
        aheadKnown ? candidates[ahead].clearance
                   : Clearance(blocked, blockedCount, lsDirection(candidates[ahead].angle), horizon, width);
    double bestAngle = 0.0, bestClearance = 0.0;
    if (best < LS_AUTOPILOT_DIRECTIONS)
    {
        bestAngle = candidates[best].angle;
        bestClearance = candidates[best].clearance;
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
    double w = lsFmin(lsFmax(3.0 * bestAngle, -def->maxTurnRate), def->maxTurnRate);
    double room = lsFmin(aheadClearance, bestClearance);
    double stopping = def->maxSpeed * def->maxSpeed / (2.0 * def->maxAccel) + 0.1 * robot->radius;
    double v =
        def->maxSpeed * lsFmin(lsFmax((room - 0.1 * robot->radius) / (stopping + 0.5 * robot->radius), 0.0), 1.0);
    v *= lsFmax(cos(bestAngle), 0.0);
    ap->v = v;
    ap->w = w;
    return lsMakeManualControl(v, w);
}
