// Graph-like matrices for SpMV on skewed and scattered rows (issue 29, the `graphs` set): R-MAT /
// Kronecker graphs and an unstructured 2D triangle mesh in grid, random or RCM order
// (implementation in matrices/graph_matrices.cpp; the other generators are in
// matrices/generators.hpp). Deterministic for a seed as the random matrices there (splitmix64
// streams, own sampling). Power-law rows with columns scattered over the whole matrix are
// random_rows (matrices/generators.hpp) with distribution power_law and bandwidth n.
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <string>

namespace kbench {

/// Parameters of rmat; the names are those of the manifest.
struct RmatParams {
    int scale = 10;              // 2^scale vertices (rows)
    index_type edge_factor = 16; // edges drawn per vertex
    double a = 0.57, b = 0.19, c = 0.19;  // quadrant probabilities (Graph500); d = 1 - a - b - c
    std::uint64_t seed = 1;
};

/// Checks `p` as rmat does. Throws std::invalid_argument naming the parameter for scale outside
/// 1..30, edge_factor < 1, a, b or c outside [0, 1] or not finite, a + b + c > 1, or when the
/// bound 2 * edge_factor * 2^scale + 2^scale on nnz overflows index_type.
void check_rmat(const RmatParams& p);

/// The R-MAT / Kronecker graph of Chakrabarti, Zhan and Faloutsos (SDM 2004), as Graph500 draws
/// it: edge_factor * 2^scale edges, each placed by `scale` recursive choices of a quadrant of
/// the adjacency matrix (top-left a, top-right b, bottom-left c, bottom-right d), then the vertex
/// labels scattered by a seeded bijection of [0, 2^scale) (as Graph500 permutes them; no noise
/// is added to a, b, c per level). The matrix is the undirected graph: A(i, j) and A(j, i) for
/// every edge {i, j}, i != j (self loops dropped, repeated edges merged), plus the diagonal.
/// Values: A(i, j) = A(j, i) uniform in [-1, -0.1] U [0.1, 1] (from a hash of the pair),
/// A(i, i) = 1 + sum_j |A(i, j)|: symmetric, strictly diagonally dominant with a positive
/// diagonal, so symmetric positive definite. Degrees are heavy tailed for a > d (Graph500:
/// a = 0.57, b = c = 0.19); a = b = c = 0.25 gives a uniform random graph. Vertices no edge
/// touches keep only their diagonal. Same parameters and seed: the same matrix.
/// Cost: O(edges * scale) for two passes over the edges (count, then fill) and a sort per row;
/// memory: the bound above in column indices while building.
Csr<double> rmat(const RmatParams& p);

/// Vertex order of mesh_2d.
enum class MeshOrdering {
    grid,    // lexicographic grid order (x fastest), as a structured mesher numbers it
    random,  // a seeded random permutation of the grid order
    rcm,     // reverse Cuthill-McKee (rcm_permutation, matrices/reorder.hpp) of the random order
};

/// "grid", "random" or "rcm"; parse_mesh_ordering throws std::invalid_argument naming all three.
const char* to_string(MeshOrdering ordering);
MeshOrdering parse_mesh_ordering(const std::string& name);

/// Checks the parameters of mesh_2d (nx, ny >= 2, nnz within index_type) without generating.
void check_mesh_2d(index_type nx, index_type ny);

/// An unstructured 2D triangle mesh and its graph Laplacian plus the identity: the points of an
/// nx x ny grid, each moved by a seeded jitter uniform in [-0.35, 0.35) in x and y, every grid
/// cell split into two triangles along its shorter diagonal (a Delaunay-like choice: the shorter
/// diagonal of a convex quadrilateral faces the larger opposite angles). Vertex i has row i:
/// -1 for each mesh neighbour (2 to 8; 6 on average inside), degree + 1 on the diagonal:
/// symmetric positive definite. n = nx*ny, nnz = n + 2((nx-1)ny + nx(ny-1) + (nx-1)(ny-1)).
/// `ordering` numbers the vertices (MeshOrdering); the three orders give the same matrix up to a
/// symmetric permutation for one seed. rcm needs Boost.Graph (reorder_has_rcm(); else
/// std::runtime_error). Throws std::invalid_argument as check_mesh_2d.
Csr<double> mesh_2d(index_type nx, index_type ny, MeshOrdering ordering, std::uint64_t seed);

}  // namespace kbench
