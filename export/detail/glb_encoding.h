#pragma once
// Internal to export/ (included only by .cpp files, which is why it may name nlohmann::json):
// a group of pieces (glb_groups.h) written into a GLB as bufferViews and accessors, quantized
// or not, reordered for meshopt's codecs when the builder compresses.

#include <string>
#include <vector>

#include "export/detail/glb_builder.h"
#include "export/detail/glb_groups.h"

namespace planet_export {

// What encodeGroup made for piece p: its attribute accessors and its index accessors.
struct PieceAccessors {
  Json attributes;      // over the surface vertices
  Json all_attributes;  // over all vertices, when the skirt adds some (else null)
  int surface = -1;
  int skirt = -1;  // -1: no skirt
};

// The attributes a piece's skirt primitive uses: all its vertices.
Json skirtAttributes(const PieceAccessors& p);

// Writes a group's arrays as views (one per attribute, one per index size) and one accessor set
// per piece. Quantized: NORMAL and TANGENT as normalized bytes, COLOR_0 as normalized unsigned
// bytes; POSITION, TEXCOORD_0 and the custom attributes stay float. Indices are uint16 for
// pieces of at most 65,535 vertices (65,535 itself is the restart value glTF forbids).
// Consumes the group's vertex and index arrays (each made when its turn comes if the group
// makes them on demand, and freed once its view is written, so the arrays and the file's bytes
// are not held twice); offsets and translations stay.
std::vector<PieceAccessors> encodeGroup(GlbBuilder& glb, Group& g,
                                        const std::vector<std::string>& scalar_names,
                                        bool quantize);

}  // namespace planet_export
