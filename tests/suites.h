// Every test suite, one line each: the runner's table and CMake's add_test list are both made from this file.
LS_SUITE(BaseTest)
LS_SUITE(GeometryTest)
LS_SUITE(DistanceTest)
LS_SUITE(SceneTest)
LS_SUITE(LidarTest)
LS_SUITE(SweepTest)
LS_SUITE(ReloadTest)
LS_SUITE(EditTest)
