#pragma once
// The droplet eroder's internals, for tests only: the detail/ headers the tests check (kernels
// against their plain twins, the node table, the fixed-point sums, one droplet's trace) and the
// way into an ErosionWorkspace. ErosionWorkspace has no public accessor; its friend
// erosion::WorkspaceAccess lives in a detail/ header that is not installed, so a program using
// the installed library cannot reach the internals, while the tests can, all through this file.

#include "erosion/detail/brush.h"
#include "erosion/detail/brush_lanes.h"
#include "erosion/detail/change_accumulator.h"
#include "erosion/detail/droplet.h"
#include "erosion/detail/droplet_trace.h"
#include "erosion/detail/node_table.h"
#include "erosion/detail/publish_lanes.h"
#include "erosion/detail/surface_lanes.h"
#include "erosion/detail/workspace_impl.h"
#include "erosion/droplet_erosion.h"

namespace test_support {

// The workspace's inside: node table, brushes, per-thread slots.
inline erosion::ErosionWorkspace::Impl& workspaceImpl(erosion::ErosionWorkspace& workspace) {
  return erosion::WorkspaceAccess::impl(workspace);
}

}  // namespace test_support
