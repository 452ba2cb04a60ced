// Zoltan PHG on the row blocks of the ranks (hypergraph_partition.hpp). Compiled only when CMake
// found Zoltan (KBENCH_HAVE_ZOLTAN, solvers/distributed/distributed.cmake).
#include "solvers/distributed/hypergraph_partition.hpp"

#include <zoltan.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

// Zoltan's global random generator (zz_rand.h, exported by the library but not installed):
// Zoltan_LB_Partition draws its seed from it and advances it, so a second partition of the same
// input in one process would differ from the first. We reset it before every call.
extern "C" unsigned int Zoltan_Seed();
extern "C" void Zoltan_Srand(unsigned int seed, unsigned int* state);

namespace kbench::dist {
namespace {

const char* zoltan_status_name(int code)
{
    switch (code) {
    case ZOLTAN_OK: return "ZOLTAN_OK";
    case ZOLTAN_WARN: return "ZOLTAN_WARN";
    case ZOLTAN_FATAL: return "ZOLTAN_FATAL";
    case ZOLTAN_MEMERR: return "ZOLTAN_MEMERR";
    default: return "unknown Zoltan status";
    }
}

// ZOLTAN_WARN is a success with a note on stderr (Zoltan prints it at DEBUG_LEVEL >= 1).
void zoltan_check(int code, const char* call, const char* file, int line)
{
    if (code == ZOLTAN_OK || code == ZOLTAN_WARN) return;
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                             " failed: " + zoltan_status_name(code) + " (" +
                             std::to_string(code) + ")");
}

#define KBENCH_ZOLTAN_CHECK(call) zoltan_check((call), #call, __FILE__, __LINE__)

struct ZoltanDestroy {
    void operator()(Zoltan_Struct* zz) const noexcept { Zoltan_Destroy(&zz); }
};
using ZoltanHandle = std::unique_ptr<Zoltan_Struct, ZoltanDestroy>;

// The import and export lists of Zoltan_LB_Partition, freed with Zoltan_LB_Free_Part.
struct PartitionLists {
    int changes = 0, num_gid = 0, num_lid = 0;
    int num_import = 0, num_export = 0;
    ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr;
    ZOLTAN_ID_PTR export_gids = nullptr, export_lids = nullptr;
    int* import_procs = nullptr;
    int* import_parts = nullptr;
    int* export_procs = nullptr;
    int* export_parts = nullptr;

    PartitionLists() = default;
    PartitionLists(const PartitionLists&) = delete;
    PartitionLists& operator=(const PartitionLists&) = delete;
    ~PartitionLists()
    {
        Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
        Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
    }
};

// The hypergraph of one rank's block, read by Zoltan's query functions.
template <typename T>
struct Hypergraph {
    const RowBlock<T>* block;
};

template <typename T>
int num_obj(void* data, int* ierr)
{
    *ierr = ZOLTAN_OK;
    return static_cast<Hypergraph<T>*>(data)->block->rows.num_rows;
}

// Vertices: global id row_begin + i, local id i, weight nnz of row i (OBJ_WEIGHT_DIM = 1).
template <typename T>
void obj_list(void* data, int num_gid, int num_lid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
              int wgt_dim, float* weights, int* ierr)
{
    const RowBlock<T>& b = *static_cast<Hypergraph<T>*>(data)->block;
    if (num_gid != 1 || num_lid != 1 || wgt_dim != 1) {
        *ierr = ZOLTAN_FATAL;
        return;
    }
    for (index_type i = 0; i < b.rows.num_rows; ++i) {
        const auto k = static_cast<std::size_t>(i);
        gids[k] = static_cast<ZOLTAN_ID_TYPE>(b.row_begin + i);
        lids[k] = static_cast<ZOLTAN_ID_TYPE>(i);
        weights[k] = static_cast<float>(b.rows.row_ptr[k + 1] - b.rows.row_ptr[k]);
    }
    *ierr = ZOLTAN_OK;
}

// Pins in compressed-vertex form: one list per local row, its global column indices (net ids).
template <typename T>
void hg_size_cs(void* data, int* num_lists, int* num_pins, int* format, int* ierr)
{
    const RowBlock<T>& b = *static_cast<Hypergraph<T>*>(data)->block;
    *num_lists = b.rows.num_rows;
    *num_pins = b.rows.nnz();
    *format = ZOLTAN_COMPRESSED_VERTEX;
    *ierr = ZOLTAN_OK;
}

template <typename T>
void hg_cs(void* data, int num_gid, int num_lists, int num_pins, int format,
           ZOLTAN_ID_PTR vtx_gids, int* vtx_ptr, ZOLTAN_ID_PTR pin_gids, int* ierr)
{
    const RowBlock<T>& b = *static_cast<Hypergraph<T>*>(data)->block;
    if (num_gid != 1 || num_lists != b.rows.num_rows || num_pins != b.rows.nnz() ||
        format != ZOLTAN_COMPRESSED_VERTEX) {
        *ierr = ZOLTAN_FATAL;
        return;
    }
    for (index_type i = 0; i < num_lists; ++i) {
        vtx_gids[i] = static_cast<ZOLTAN_ID_TYPE>(b.row_begin + i);
        vtx_ptr[i] = b.rows.row_ptr[static_cast<std::size_t>(i)];
    }
    for (index_type k = 0; k < num_pins; ++k)
        pin_gids[k] = static_cast<ZOLTAN_ID_TYPE>(b.rows.col_idx[static_cast<std::size_t>(k)]);
    *ierr = ZOLTAN_OK;
}

// What is wrong with a block, or "" (checked before any collective).
template <typename T>
std::string block_error(const RowBlock<T>& b)
{
    const Csr<T>& r = b.rows;
    if (b.global_rows < 0) return "global_rows " + std::to_string(b.global_rows) + " < 0";
    if (r.num_rows < 0 || r.row_ptr.size() != static_cast<std::size_t>(r.num_rows) + 1 ||
        r.row_ptr.front() != 0 || r.row_ptr.back() != r.nnz())
        return "rows.row_ptr must have rows.num_rows + 1 entries from 0 to nnz";
    if (b.row_begin < 0 || b.row_begin > b.global_rows - r.num_rows)
        return "rows [" + std::to_string(b.row_begin) + ", " +
               std::to_string(std::int64_t{b.row_begin} + r.num_rows) + ") outside [0, " +
               std::to_string(b.global_rows) + ")";
    for (index_type i = 0; i < r.num_rows; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (r.row_ptr[k + 1] < r.row_ptr[k])
            return "rows.row_ptr decreases at local row " + std::to_string(i);
        for (index_type p = r.row_ptr[k]; p < r.row_ptr[k + 1]; ++p) {
            const index_type c = r.col_idx[static_cast<std::size_t>(p)];
            if (c < 0 || c >= b.global_rows)
                return "column index " + std::to_string(c) + " of local row " +
                       std::to_string(i) + " outside [0, global_rows = " +
                       std::to_string(b.global_rows) + ")";
        }
    }
    return {};
}

void set_param(Zoltan_Struct* zz, const char* name, const std::string& value)
{
    KBENCH_ZOLTAN_CHECK(Zoltan_Set_Param(zz, name, value.c_str()));
}

// Zoltan_Initialize once; returns the generator's state before any partition in this process.
unsigned int initialize_zoltan()
{
    static const unsigned int initial_seed = [] {
        float version = 0.0f;
        KBENCH_ZOLTAN_CHECK(Zoltan_Initialize(0, nullptr, &version));
        char* id_type = nullptr;
        if (Zoltan_get_global_id_type(&id_type) != static_cast<int>(sizeof(ZOLTAN_ID_TYPE)))
            throw std::runtime_error(
                "hypergraph_partition: the Zoltan library's ZOLTAN_ID_TYPE (" +
                std::string(id_type != nullptr ? id_type : "?") +
                ") differs from zoltan.h's: header and library of different builds");
        return Zoltan_Seed();
    }();
    return initial_seed;
}

}  // namespace

bool hypergraph_available() { return true; }

template <typename T>
HypergraphPartition hypergraph_partition(const Communicator& comm, const RowBlock<T>& block,
                                         const HypergraphOptions& options)
{
    // Check on every rank, then agree, so that no rank enters Zoltan alone.
    const bool bad_imbalance = !(options.imbalance > 0.0 && options.imbalance < 1.0);
    const std::string block_msg = block_error(block);
    int bad[2] = {bad_imbalance ? 1 : 0, block_msg.empty() ? 0 : 1};
    comm.allreduce_sum(bad, 2);
    if (bad[0] > 0 || bad[1] > 0) {
        std::string msg = "hypergraph_partition: ";
        if (bad_imbalance)
            msg += "imbalance = " + std::to_string(options.imbalance) + ", expected in (0, 1)";
        else if (!block_msg.empty())
            msg += "block: " + block_msg;
        else
            msg += std::string(bad[0] > 0 ? "imbalance" : "block") + " invalid on another rank";
        throw std::invalid_argument(msg);
    }

    HypergraphPartition result;
    result.local_part.assign(static_cast<std::size_t>(block.rows.num_rows), 0);
    if (comm.size() == 1) return result;

    const unsigned int seed = initialize_zoltan();
    ZoltanHandle zz(Zoltan_Create(comm.get()));
    if (!zz) throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) +
                                      ": Zoltan_Create failed");
    char tol[32];
    std::snprintf(tol, sizeof tol, "%.17g", 1.0 + options.imbalance);
    set_param(zz.get(), "DEBUG_LEVEL", "0");
    set_param(zz.get(), "LB_METHOD", "HYPERGRAPH");
    set_param(zz.get(), "HYPERGRAPH_PACKAGE", "PHG");
    set_param(zz.get(), "LB_APPROACH", "PARTITION");
    set_param(zz.get(), "PHG_CUT_OBJECTIVE", "CONNECTIVITY");  // eq. 9
    set_param(zz.get(), "NUM_GLOBAL_PARTS", std::to_string(comm.size()));
    set_param(zz.get(), "NUM_GID_ENTRIES", "1");
    set_param(zz.get(), "NUM_LID_ENTRIES", "1");
    set_param(zz.get(), "OBJ_WEIGHT_DIM", "1");   // w_i = nnz of row i
    set_param(zz.get(), "EDGE_WEIGHT_DIM", "0");  // c_j = 1
    set_param(zz.get(), "IMBALANCE_TOL", tol);    // eq. 10
    set_param(zz.get(), "RETURN_LISTS", "PARTITION ASSIGNMENTS");  // every local row's part

    Hypergraph<T> hg{&block};
    KBENCH_ZOLTAN_CHECK(Zoltan_Set_Num_Obj_Fn(zz.get(), num_obj<T>, &hg));
    KBENCH_ZOLTAN_CHECK(Zoltan_Set_Obj_List_Fn(zz.get(), obj_list<T>, &hg));
    KBENCH_ZOLTAN_CHECK(Zoltan_Set_HG_Size_CS_Fn(zz.get(), hg_size_cs<T>, &hg));
    KBENCH_ZOLTAN_CHECK(Zoltan_Set_HG_CS_Fn(zz.get(), hg_cs<T>, &hg));

    PartitionLists lists;
    Zoltan_Srand(seed, nullptr);  // every call as the first of a fresh process: reproducible
    const double start = MPI_Wtime();
    KBENCH_ZOLTAN_CHECK(Zoltan_LB_Partition(
        zz.get(), &lists.changes, &lists.num_gid, &lists.num_lid, &lists.num_import,
        &lists.import_gids, &lists.import_lids, &lists.import_procs, &lists.import_parts,
        &lists.num_export, &lists.export_gids, &lists.export_lids, &lists.export_procs,
        &lists.export_parts));
    result.seconds = comm.allreduce_max(MPI_Wtime() - start);

    // With PARTITION ASSIGNMENTS the export lists hold every local row with its part.
    std::vector<char> seen(result.local_part.size(), 0);
    for (int k = 0; k < lists.num_export; ++k) {
        const ZOLTAN_ID_TYPE lid = lists.export_lids[k];
        const int part = lists.export_parts[k];
        if (lid >= result.local_part.size() || part < 0 || part >= comm.size())
            throw std::runtime_error("hypergraph_partition: Zoltan returned local row " +
                                     std::to_string(lid) + " in part " + std::to_string(part));
        result.local_part[lid] = part;
        seen[lid] = 1;
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i] == 0)
            throw std::runtime_error("hypergraph_partition: Zoltan returned no part for local row " +
                                     std::to_string(i));
    return result;
}

template HypergraphPartition hypergraph_partition(const Communicator&, const RowBlock<float>&,
                                                  const HypergraphOptions&);
template HypergraphPartition hypergraph_partition(const Communicator&, const RowBlock<double>&,
                                                  const HypergraphOptions&);

}  // namespace kbench::dist
