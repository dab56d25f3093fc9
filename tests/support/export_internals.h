#pragma once
// The export module's internals, for tests only: the detail/ headers the tests check (chunk
// frames and pieces, the per-piece vertex tables, the surface buffers and normals behind the
// glb writer, the GLB container, the meshopt codec, the OBJ's number text).
// They are not installed, so a program using the installed library cannot reach them; the
// tests reach them all through this file.

#include "export/detail/chunk_frames.h"
#include "export/detail/chunks.h"
#include "export/detail/decimal_text.h"
#include "export/detail/glb_builder.h"
#include "export/detail/meshopt_codec.h"
#include "export/detail/piece_ids.h"
#include "export/detail/surface_buffers.h"
#include "export/detail/surface_normals.h"
