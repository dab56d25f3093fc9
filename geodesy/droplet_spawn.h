#pragma once
// The hand-over from rain sources (weather/) to erosion (erosion/): where a droplet lands and
// how much water it starts with. It lives in geodesy because both stages stand on geodesy
// alone and neither includes the other.

#include "geodesy/sphere_mesh.h"

namespace geodesy {

struct DropletSpawn {
  SurfacePoint point;
  float water = 1.0f;  // multiple of the erosion stage's initial_water
};

}  // namespace geodesy
