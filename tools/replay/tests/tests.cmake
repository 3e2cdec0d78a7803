# Tests of accel replay (filled below).
