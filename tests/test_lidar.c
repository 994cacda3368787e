// Tests of lidar.c: beam layout, exact noiseless ranges in known rooms, no leaks from closed rooms, the noise model
// (statistics, clamping, dropout, jitter actually applied), minimum range, intensities and reproducibility.
#include "lidarsim/lidar.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int LayoutTest(void)
{
    // The example: 360 beams over 360 degrees.
    lsScanLayout full = lsMakeScanLayout(360, lsDegToRad(360.0));
    ENSURE(full.angleMin == -LS_PI);
    ENSURE(full.angleIncrement == 2.0 * LS_PI / 360.0);
    ENSURE_SMALL(full.angleMax - 3.12414, 1e-5);
    ENSURE_SMALL(full.angleIncrement - 0.01745, 1e-5);
    // fov < 360: the beams span -fov/2 .. +fov/2 inclusive.
    lsScanLayout part = lsMakeScanLayout(1080, lsDegToRad(270.0));
    ENSURE(part.angleMin == -0.5 * lsDegToRad(270.0));
    ENSURE_SMALL(part.angleMax - 0.5 * lsDegToRad(270.0), 1e-12);
    ENSURE_SMALL(part.angleIncrement - lsDegToRad(270.0) / 1079.0, 1e-15);
    ENSURE_SMALL(lsScanLayout_Angle(&part, 1079) - part.angleMax, 0.0);
    // A single beam points straight ahead, whatever the fov.
    lsScanLayout one = lsMakeScanLayout(1, lsDegToRad(90.0));
    ENSURE(one.angleMin == 0.0 && one.angleMax == 0.0 && one.angleIncrement == 0.0);
    lsScanLayout oneFull = lsMakeScanLayout(1, 2.0 * LS_PI);
    ENSURE(oneFull.angleMin == 0.0 && oneFull.angleIncrement == 0.0 && oneFull.beams == 1);
    lsScanLayout two = lsMakeScanLayout(2, LS_PI);
    ENSURE_SMALL(two.angleMin + 0.5 * LS_PI, 0.0);
    ENSURE_SMALL(two.angleMax - 0.5 * LS_PI, 0.0);
    return 0;
}

// A square room [-h, h]^2 made of a closed chain, reflectance 0.8 (the default of lsWorld_AddWall).
static lsWorld* MakeSquareRoom(double h)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 corners[4] = {lsV(-h, -h), lsV(h, -h), lsV(h, h), lsV(-h, h)};
    lsWorld_AddWall(world, corners, 4, true);
    return world;
}

static lsLidarDef Lidar(int beams, double fovDeg, double range)
{
    lsLidarDef def = lsDefaultLidarDef();
    def.beams = beams;
    def.fov = lsDegToRad(fovDeg);
    def.range = range;
    return def;
}

static int SquareRoomTest(void)
{
    double h = 4.0;
    lsWorld* world = MakeSquareRoom(h);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(720, 360.0, 20.0);
    lsScan* scan = lsCreateScan(def.beams);
    // A sensor at (1, -0.5) heading 30 degrees: the range along world angle a is the distance to the square.
    lsTransform pose = {lsV(1.0, -0.5), lsMakeRot(lsDegToRad(30.0))};
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    ENSURE(scan->count == 720);
    for (int i = 0; i < scan->count; ++i)
    {
        double a = lsDegToRad(30.0) + scan->angles[i];
        double c = cos(a), s = sin(a);
        double tx = c > 0.0 ? (h - 1.0) / c : (c < 0.0 ? (-h - 1.0) / c : HUGE_VAL);
        double ty = s > 0.0 ? (h + 0.5) / s : (s < 0.0 ? (-h + 0.5) / s : HUGE_VAL);
        double expected = fmin(tx, ty);
        ENSURE(scan->kinds[i] == ls_hitWall && scan->indices[i] == 0);
        ENSURE_SMALL(scan->ranges[i] - expected, 1e-12);
        // Intensity: reflectance times |cos incidence|; the normal faces the sensor.
        lsVec2 dir = lsV(c, s);
        ENSURE(lsDot(scan->normals[i], dir) <= 0.0);
        ENSURE_SMALL(scan->intensities[i] - 0.8 * fabs(lsDot(scan->normals[i], dir)), 1e-12);
        ENSURE_SMALL(lsDistance(scan->points[i], lsMulAdd(pose.p, scan->ranges[i], dir)), 1e-9);
        // The part: 0 bottom, 1 right, 2 top, 3 left (closing segment last).
        int part = tx < ty ? (c > 0.0 ? 1 : 3) : (s > 0.0 ? 2 : 0);
        if (fabs(tx - ty) > 1e-9)
        {
            ENSURE(scan->parts[i] == part);
        }
    }
    // Beyond the maximum range nothing returns: range INFINITY, kind none, end point at range.
    def.range = 4.0;
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    int none = 0;
    for (int i = 0; i < scan->count; ++i)
    {
        if (scan->kinds[i] == ls_hitNone)
        {
            none += 1;
            ENSURE(isinf(scan->ranges[i]) && scan->intensities[i] == 0.0 && scan->indices[i] == -1);
            ENSURE_SMALL(lsDistance(scan->points[i], pose.p) - 4.0, 1e-12);
        }
        else
        {
            ENSURE(scan->ranges[i] <= 4.0);
        }
    }
    ENSURE(none > 100 && none < 620);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int ClosedRoomNoLeakTest(void)
{
    // A room whose corners lie exactly on beam directions (a regular polygon aligned with the beams), from its
    // centre and from off-centre poses: every beam hits a wall.
    lsWorld* world = lsCreateWorld();
    enum
    {
        n = 36
    };
    lsVec2 points[n];
    for (int k = 0; k < n; ++k)
    {
        double a = -LS_PI + 2.0 * LS_PI * (double)k / (double)n;
        points[k] = lsV(6.0 * cos(a), 6.0 * sin(a));
    }
    for (int k = 0; k < n; ++k)
    {
        lsVec2 seg[2] = {points[k], points[(k + 1) % n]};
        lsWorld_AddWall(world, seg, 2, false);
    }
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(3600, 360.0, 50.0);
    lsScan* scan = lsCreateScan(def.beams);
    lsRng rng = lsMakeRng(5);
    for (int p = 0; p < 20; ++p)
    {
        lsTransform pose = {lsV(0.0, 0.0), lsRotIdentity()};
        if (p > 0)
        {
            pose.p = lsTestRandomPoint(&rng, -3.0, 3.0, -3.0, 3.0);
            pose.q = lsMakeRot(lsRng_Range(&rng, -LS_PI, LS_PI));
        }
        lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
        for (int i = 0; i < scan->count; ++i)
        {
            ENSURE(scan->kinds[i] == ls_hitWall);
            // Inside the circumscribed circle of radius 6, from within 3 sqrt(2) of the centre.
            ENSURE(scan->ranges[i] > 6.0 * cos(LS_PI / n) - 4.25 && scan->ranges[i] <= 6.0 + 4.25);
        }
    }
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A robot standing on a wall's corner or inside a wall: the beams that start on a wall report +0, never -0 (a
// LaserScan range of -0.0 was printed for the beams pointing left), on the fan's path and with moving objects.
static int ZeroRangeSignTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 chain[3] = {{0, 1}, {0, 0}, {1, 0}};
    lsWorld_AddWall(world, chain, 3, false);
    lsVec2 slanted[2] = {{-2, -1}, {2, 1}};
    lsWorld_AddWall(world, slanted, 2, false);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(360, 360.0, 10.0);
    lsScan* scan = lsCreateScan(def.beams);
    lsVec2 origins[3] = {{0, 0}, {0, 0.5}, {1, 0.5}};
    int zeros = 0;
    for (int k = 0; k < 3; ++k)
    {
        for (int h = 0; h < 8; ++h)
        {
            ENSURE(lsLidar_ScanFrom(scene, NULL, &def, origins[k], 0.25 * LS_PI * h, NULL, scan));
            for (int i = 0; i < scan->count; ++i)
            {
                ENSURE(!signbit(scan->ranges[i]));
                zeros += scan->ranges[i] == 0.0;
            }
        }
    }
    ENSURE(zeros > 3 * 8 * 180);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int SensorPoseTest(void)
{
    lsLidarDef def = Lidar(5, 90.0, 10.0);
    def.mountOffset = lsV(0.5, 0.0);
    def.mountAngle = lsDegToRad(90.0);
    lsTransform robot = {lsV(1.0, 2.0), lsMakeRot(lsDegToRad(90.0))};
    lsTransform sensor = lsLidar_SensorPose(&def, robot);
    ENSURE_SMALL(sensor.p.x - 1.0, 1e-15);
    ENSURE_SMALL(sensor.p.y - 2.5, 1e-15);
    ENSURE_SMALL(lsRot_GetAngle(sensor.q) - LS_PI, 1e-15);
    // The middle beam of the scan points along the sensor heading: a wall at x = -3 is 4 m away.
    lsWorld* world = lsCreateWorld();
    lsVec2 wall[2] = {lsV(-3.0, -10.0), lsV(-3.0, 10.0)};
    lsWorld_AddWall(world, wall, 2, false);
    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(8);
    lsLidar_Scan(scene, NULL, &def, sensor, NULL, scan);
    ENSURE(scan->count == 5);
    ENSURE_SMALL(scan->ranges[2] - 4.0, 1e-12);
    ENSURE_SMALL(scan->intensities[2] - 0.8, 1e-12);
    // +-45 degrees: 4 / cos(45).
    ENSURE_SMALL(scan->ranges[0] - 4.0 * sqrt(2.0), 1e-12);
    ENSURE_SMALL(scan->ranges[4] - 4.0 * sqrt(2.0), 1e-12);
    ENSURE_SMALL(scan->intensities[0] - 0.8 * sqrt(0.5), 1e-12);
    // The same scan object with another layout (its cached beam directions must follow): 180 degrees, so the
    // outer beams run along the wall and see nothing.
    def.fov = lsDegToRad(180.0);
    lsLidar_Scan(scene, NULL, &def, sensor, NULL, scan);
    ENSURE(scan->kinds[0] == ls_hitNone && scan->kinds[4] == ls_hitNone);
    ENSURE_SMALL(scan->ranges[1] - 4.0 * sqrt(2.0), 1e-12);
    ENSURE_SMALL(scan->ranges[2] - 4.0, 1e-12);
    ENSURE_SMALL(scan->angles[4] - 0.5 * LS_PI, 1e-15);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// A wall at distance d straight ahead (x = d), very long.
static lsScene* WallAhead(lsWorld** worldOut, double d)
{
    lsWorld* world = lsCreateWorld();
    lsVec2 wall[2] = {lsV(d, -1000.0), lsV(d, 1000.0)};
    lsWorld_AddWall(world, wall, 2, false);
    *worldOut = world;
    return lsCreateScene(world);
}

static int RangeNoiseTest(void)
{
    lsWorld* world;
    lsScene* scene = WallAhead(&world, 5.0);
    lsLidarDef def = Lidar(1, 10.0, 20.0);
    def.noise = 0.02;
    def.noisePerM = 0.01; // sigma = 0.02 + 0.05 = 0.07 at 5 m
    lsScan* scan = lsCreateScan(1);
    lsRng rng = lsMakeRng(77);
    lsTransform pose = {lsV(0.0, 0.0), lsRotIdentity()};
    double sum = 0.0, sumSq = 0.0;
    int n = 20000;
    for (int i = 0; i < n; ++i)
    {
        lsLidar_Scan(scene, NULL, &def, pose, &rng, scan);
        ENSURE(scan->kinds[0] == ls_hitWall);
        double e = scan->ranges[0] - 5.0;
        sum += e;
        sumSq += e * e;
    }
    ENSURE_SMALL(sum / n, 0.003);
    ENSURE_SMALL(sqrt(sumSq / n) - 0.07, 0.003);

    // Huge noise near the maximum range and near zero: never negative, never beyond max.
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    scene = WallAhead(&world, 0.05);
    def.noise = 1.0;
    def.noisePerM = 0.0;
    def.range = 0.1;
    int atZero = 0, atMax = 0;
    for (int i = 0; i < 5000; ++i)
    {
        lsLidar_Scan(scene, NULL, &def, pose, &rng, scan);
        ENSURE(scan->kinds[0] == ls_hitWall);
        ENSURE(scan->ranges[0] >= 0.0 && scan->ranges[0] <= 0.1);
        atZero += scan->ranges[0] == 0.0;
        atMax += scan->ranges[0] == 0.1;
    }
    ENSURE(atZero > 1000 && atMax > 1000);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int ReproducibleTest(void)
{
    lsWorld* world = MakeSquareRoom(5.0);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(400, 270.0, 12.0);
    def.noise = 0.01;
    def.noisePerM = 0.002;
    def.angleNoise = lsDegToRad(0.2);
    def.dropout = 0.05;
    def.grazingDropout = 0.2;
    lsScan* a = lsCreateScan(400);
    lsScan* b = lsCreateScan(400);
    lsTransform pose = {lsV(0.3, 0.2), lsMakeRot(0.4)};
    lsRng r1 = lsMakeRng(9), r2 = lsMakeRng(9), r3 = lsMakeRng(10);
    lsLidar_Scan(scene, NULL, &def, pose, &r1, a);
    lsLidar_Scan(scene, NULL, &def, pose, &r2, b);
    // Determinism means the same bits (signed zeros and all), so the arrays are compared as bytes on purpose.
    // NOLINTBEGIN(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
    ENSURE(memcmp(a->ranges, b->ranges, 400 * sizeof(double)) == 0);
    ENSURE(memcmp(a->points, b->points, 400 * sizeof(lsVec2)) == 0);
    lsLidar_Scan(scene, NULL, &def, pose, &r3, b);
    ENSURE(memcmp(a->ranges, b->ranges, 400 * sizeof(double)) != 0);
    // NOLINTEND(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
    lsDestroyScan(a);
    lsDestroyScan(b);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int DropoutTest(void)
{
    lsWorld* world;
    lsScene* scene = WallAhead(&world, 3.0);
    lsScan* scan = lsCreateScan(1);
    lsRng rng = lsMakeRng(3);
    // Plain dropout: about 30% of beams return nothing.
    lsLidarDef def = Lidar(1, 10.0, 20.0);
    def.dropout = 0.3;
    int n = 20000, dropped = 0;
    lsTransform pose = {lsV(0.0, 0.0), lsRotIdentity()};
    for (int i = 0; i < n; ++i)
    {
        lsLidar_Scan(scene, NULL, &def, pose, &rng, scan);
        dropped += scan->kinds[0] == ls_hitNone;
        ENSURE(scan->kinds[0] == ls_hitNone ? isinf(scan->ranges[0]) : scan->ranges[0] == 3.0);
    }
    ENSURE_SMALL((double)dropped / n - 0.3, 0.015);
    // Grazing dropout: head-on (cos 1) adds nothing; at 60 degrees incidence (cos 0.5) it adds half.
    def.dropout = 0.0;
    def.grazingDropout = 0.8;
    int headOn = 0, oblique = 0;
    lsTransform slanted = {lsV(0.0, 0.0), lsMakeRot(lsDegToRad(60.0))};
    for (int i = 0; i < n; ++i)
    {
        lsLidar_Scan(scene, NULL, &def, pose, &rng, scan);
        headOn += scan->kinds[0] == ls_hitNone;
        lsLidar_Scan(scene, NULL, &def, slanted, &rng, scan);
        oblique += scan->kinds[0] == ls_hitNone;
    }
    ENSURE(headOn == 0);
    ENSURE_SMALL((double)oblique / n - 0.4, 0.015);
    // No rng: no dropout at all.
    def.dropout = 1.0;
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    ENSURE(scan->kinds[0] == ls_hitWall);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int JitterTest(void)
{
    // Angular jitter turns the cast direction: on a wall 10 m ahead the hit points spread by about
    // 10 * tan(sigma) sideways, while the reported angle stays nominal.
    lsWorld* world;
    lsScene* scene = WallAhead(&world, 10.0);
    lsLidarDef def = Lidar(1, 10.0, 30.0);
    def.angleNoise = lsDegToRad(1.0);
    lsScan* scan = lsCreateScan(1);
    lsRng rng = lsMakeRng(4);
    lsTransform pose = {lsV(0.0, 0.0), lsRotIdentity()};
    double sumSq = 0.0;
    int n = 10000;
    for (int i = 0; i < n; ++i)
    {
        lsLidar_Scan(scene, NULL, &def, pose, &rng, scan);
        ENSURE(scan->angles[0] == 0.0 && scan->kinds[0] == ls_hitWall);
        ENSURE_SMALL(scan->points[0].x - 10.0, 1e-12);
        ENSURE_SMALL(scan->ranges[0] - lsLength(scan->points[0]), 1e-12);
        sumSq += scan->points[0].y * scan->points[0].y;
    }
    ENSURE_SMALL(sqrt(sumSq / n) - 10.0 * tan(lsDegToRad(1.0)), 0.01);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int RangeMinAndSolidsTest(void)
{
    lsWorld* world = MakeSquareRoom(10.0);
    lsBoxDef box = lsDefaultBoxDef();
    box.center = lsV(0.0, 0.0);
    box.size = lsV(2.0, 2.0);
    box.angle = 0.3;
    box.reflectance = 0.25;
    lsWorld_AddBox(world, box);
    lsTargetDef food = lsDefaultTargetDef();
    food.center = lsV(5.0, 0.0);
    food.radius = 0.5;
    food.kind = ls_food;
    lsWorld_AddTarget(world, food);
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(360, 360.0, 30.0);
    lsScan* scan = lsCreateScan(360);
    // Inside the box: every beam returns range 0 from the box, with the full reflectance as intensity.
    lsTransform inside = {lsV(0.2, -0.1), lsMakeRot(1.0)};
    lsLidar_Scan(scene, NULL, &def, inside, NULL, scan);
    for (int i = 0; i < scan->count; ++i)
    {
        ENSURE(scan->kinds[i] == ls_hitBox && scan->indices[i] == 0 && scan->ranges[i] == 0.0);
        ENSURE_SMALL(scan->intensities[i] - 0.25, 1e-12);
    }
    // With range_min > 0 those beams are no return.
    def.rangeMin = 0.1;
    lsLidar_Scan(scene, NULL, &def, inside, NULL, scan);
    for (int i = 0; i < scan->count; ++i)
    {
        ENSURE(scan->kinds[i] == ls_hitNone && isinf(scan->ranges[i]));
    }
    // From (3, 0) facing +x: the target 1.5 m ahead is seen as a target with its index; with range_min 2 it is not.
    lsTransform pose = {lsV(3.0, 0.0), lsRotIdentity()};
    def.rangeMin = 0.0;
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    int ahead = 180; // angleMin = -pi, beam 180 points along +x
    ENSURE(scan->angles[ahead] == 0.0);
    ENSURE(scan->kinds[ahead] == ls_hitTarget && scan->indices[ahead] == 0);
    ENSURE_SMALL(scan->ranges[ahead] - 1.5, 1e-12);
    ENSURE_SMALL(scan->intensities[ahead] - food.reflectance, 1e-12);
    def.rangeMin = 2.0;
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    ENSURE(scan->kinds[ahead] == ls_hitNone);
    // Vehicles and movers are seen, with their index.
    def.rangeMin = 0.0;
    lsCircle vehicle = {lsV(3.0, 2.0), 0.5};
    lsSegment mover = {lsV(2.0, -1.0), lsV(4.0, -1.0)};
    lsDynamicObjects dyn = {
        .vehicles = &vehicle, .vehicleCount = 1, .movers = &mover, .moverCount = 1, .skipRobot = -1};
    lsLidar_Scan(scene, &dyn, &def, pose, NULL, scan);
    ENSURE(scan->kinds[270] == ls_hitVehicle && scan->indices[270] == 0);
    ENSURE_SMALL(scan->ranges[270] - 1.5, 1e-12);
    ENSURE(scan->kinds[90] == ls_hitMover && scan->indices[90] == 0);
    ENSURE_SMALL(scan->ranges[90] - 1.0, 1e-12);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

// Beam directions are the sensor-frame ones, kept in the scan per layout, rotated by the heading: unit within a few
// units in the last place, that close to lsDirection of the world angle, exact straight ahead, and the same whatever
// layouts the scan object cast before (the kept directions follow the layout).
static int BeamDirectionTest(void)
{
    lsWorld* world = lsCreateWorld();
    lsScene* scene = lsCreateScene(world);
    lsScan* scan = lsCreateScan(1081);
    lsScan* fresh = lsCreateScan(1081);
    lsRng rng = lsMakeRng(21);
    const int beams[] = {1081, 360, 360, 1, 2, 1081, 45, 360};
    const double fovs[] = {270.0, 360.0, 360.0, 10.0, 180.0, 270.0, 90.0, 359.0};
    for (int k = 0; k < 8; ++k)
    {
        lsLidarDef def = Lidar(beams[k], fovs[k], 10.0);
        double heading = k == 2 ? 1e4 + lsRng_Range(&rng, -1.0, 1.0) : lsRng_Range(&rng, -7.0, 7.0);
        ENSURE(lsLidar_ScanFrom(scene, NULL, &def, lsV(0.5, -0.25), heading, NULL, scan));
        ENSURE(lsLidar_ScanFrom(scene, NULL, &def, lsV(0.5, -0.25), heading, NULL, fresh));
        lsDestroyScan(fresh);
        fresh = lsCreateScan(1081);
        ENSURE(lsLidar_ScanFrom(scene, NULL, &def, lsV(0.5, -0.25), heading, NULL, fresh));
        for (int i = 0; i < scan->count; ++i)
        {
            lsVec2 d = lsScan_BeamDirection(scan, i);
            ENSURE(lsVecEqual(d, lsScan_BeamDirection(fresh, i)) && lsVecEqual(scan->points[i], fresh->points[i]));
            ENSURE(lsVecEqual(scan->points[i], lsMulAdd(lsV(0.5, -0.25), 10.0, d))); // no return: the beam's end
            ENSURE_SMALL(lsLength(d) - 1.0, 4.0 * DBL_EPSILON);
            lsVec2 e = lsDirection(heading + scan->angles[i]); // rounds the sum: up to 1e4 * DBL_EPSILON off
            ENSURE_SMALL(lsLength(lsSub(d, e)), k == 2 ? 1e4 * DBL_EPSILON : 8.0 * DBL_EPSILON);
            if (scan->angles[i] == 0.0)
            {
                ENSURE(d.x == cos(heading) && d.y == sin(heading));
            }
        }
        ENSURE(lsScan_BeamDirection(scan, -1).x == 0.0 && lsScan_BeamDirection(scan, scan->count).y == 0.0);
    }
    ENSURE(lsScan_BeamDirection(NULL, 0).x == 0.0);
    lsDestroyScan(fresh);
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

static int ScanMatchesBruteTest(void)
{
    // Every beam of a scan equals the brute-force cast along the same direction.
    lsWorld* world = lsCreateWorld();
    lsRng rng = lsMakeRng(8);
    for (int i = 0; i < 300; ++i)
    {
        lsVec2 a = lsTestRandomPoint(&rng, -15.0, 15.0, -15.0, 15.0);
        lsVec2 b = lsAdd(a, lsTestRandomPoint(&rng, -2.0, 2.0, -2.0, 2.0));
        lsVec2 p[2] = {a, b};
        lsWorld_AddWall(world, p, 2, false);
    }
    lsScene* scene = lsCreateScene(world);
    lsLidarDef def = Lidar(1080, 270.0, 30.0);
    lsScan* scan = lsCreateScan(1080);
    lsTransform pose = {lsV(0.1, 0.2), lsMakeRot(0.7)};
    lsLidar_Scan(scene, NULL, &def, pose, NULL, scan);
    ENSURE_SMALL(scan->heading - 0.7, 1e-15);
    for (int i = 0; i < scan->count; ++i)
    {
        lsRayInput in = {pose.p, lsScan_BeamDirection(scan, i), def.range};
        lsRayHit hit = lsScene_CastRayBrute(scene, NULL, &in);
        ENSURE(hit.kind == scan->kinds[i] && hit.index == scan->indices[i]);
        ENSURE(hit.hit ? scan->ranges[i] == hit.fraction : isinf(scan->ranges[i]));
    }
    lsDestroyScan(scan);
    lsDestroyScene(scene);
    lsDestroyWorld(world);
    return 0;
}

int LidarTest(void)
{
    RUN_SUBTEST(LayoutTest);
    RUN_SUBTEST(SquareRoomTest);
    RUN_SUBTEST(ClosedRoomNoLeakTest);
    RUN_SUBTEST(ZeroRangeSignTest);
    RUN_SUBTEST(SensorPoseTest);
    RUN_SUBTEST(RangeNoiseTest);
    RUN_SUBTEST(ReproducibleTest);
    RUN_SUBTEST(DropoutTest);
    RUN_SUBTEST(JitterTest);
    RUN_SUBTEST(RangeMinAndSolidsTest);
    RUN_SUBTEST(BeamDirectionTest);
    RUN_SUBTEST(ScanMatchesBruteTest);
    return 0;
}
