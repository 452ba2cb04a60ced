// The MPI session and communicator of the distributed layer: one MPI rank per GPU, as in the
// multi-GPU GMRES of zianekhodja2014 (Sec. 4) and the CA-GMRES of yamazaki2014 (Sec. IV, one
// MPI process per GPU); OpenMPI on Debian (libopenmpi-dev), launched as `mpirun -np N kbench ...`.
//
// Every MPI call of the layer goes through KBENCH_MPI_CHECK, which throws kbench::dist::mpi_error
// with file:line, the call's text and MPI's error string. A Communicator duplicates its parent
// and sets MPI_ERRORS_RETURN on the duplicate, so a failing call returns a code that the macro
// turns into an exception instead of aborting the job.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::dist {

/// Thrown by KBENCH_MPI_CHECK when an MPI call returns an error code.
class mpi_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {

/// MPI_Error_string of `code` (with its error class when they differ); never throws.
std::string mpi_error_string(int code);

[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

inline void mpi_check(int code, const char* call, const char* file, int line)
{
    if (code != MPI_SUCCESS) throw_mpi_error(code, call, file, line);
}

/// The MPI datatype of T: float, double, int, std::int64_t, std::uint64_t, char.
template <typename T>
MPI_Datatype mpi_type();

}  // namespace detail
}  // namespace kbench::dist

/// Throws kbench::dist::mpi_error "file:line: call failed: <MPI error string>" when `call` does
/// not return MPI_SUCCESS.
#define KBENCH_MPI_CHECK(call) ::kbench::dist::detail::mpi_check((call), #call, __FILE__, __LINE__)

namespace kbench::dist {

/// RAII owner of the MPI library: MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread
/// calls MPI) on construction and MPI_Finalize on destruction. When MPI is already initialized
/// (by a caller or another session) it does nothing and does not finalize. Neither copyable nor
/// movable; create one at the start of main(), before any Communicator, and let it outlive them.
class MpiSession {
public:
    /// Throws mpi_error when MPI_Init_thread fails.
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /// True between MPI_Init and MPI_Finalize (whoever called them).
    static bool active();

private:
    bool owner_ = false;
};

/// A duplicate of an MPI communicator (MPI_COMM_WORLD by default) with MPI_ERRORS_RETURN, plus
/// the node-local communicator of the ranks sharing its memory (MPI_COMM_TYPE_SHARED), which
/// picks the GPU of each rank. Move-only; the communicators are freed on destruction (skipped
/// when MPI is already finalized). Every member that communicates is collective over the
/// communicator: all ranks must call it, in the same order, with the same counts.
class Communicator {
public:
    /// Collective over `parent`. Throws std::logic_error when MPI is not initialized (no
    /// MpiSession), mpi_error when duplicating or splitting fails.
    explicit Communicator(MPI_Comm parent = MPI_COMM_WORLD);
    ~Communicator();
    Communicator(Communicator&& other) noexcept;
    Communicator& operator=(Communicator&& other) noexcept;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    /// Rank among the ranks of this communicator on the same node, and their number.
    int local_rank() const noexcept { return local_rank_; }
    int local_size() const noexcept { return local_size_; }
    /// The duplicated communicator (for MPI calls the class does not wrap).
    MPI_Comm get() const noexcept { return comm_; }

    void barrier() const;

    /// values[i] := sum over ranks of values[i], i < count, in place on host memory
    /// (MPI_Allreduce with MPI_SUM; the order of the floating-point sum is MPI's). T: float,
    /// double, int, std::int64_t, std::uint64_t. Throws std::invalid_argument for count < 0 or
    /// a null pointer with count > 0.
    template <typename T>
    void allreduce_sum(T* values, int count) const;
    /// The sum over ranks of one value.
    template <typename T>
    T allreduce_sum(T value) const
    {
        allreduce_sum(&value, 1);
        return value;
    }
    /// Maximum and minimum over ranks of one value (T as allreduce_sum).
    template <typename T>
    T allreduce_max(T value) const;
    template <typename T>
    T allreduce_min(T value) const;

    /// Copies `bytes` bytes at `data` from rank `root` to every rank (MPI_Bcast). Throws
    /// std::invalid_argument for a root outside [0, size).
    void broadcast(void* data, std::size_t bytes, int root = 0) const;

    /// True on every rank when `value` is the same on all ranks, false on every rank otherwise.
    bool all_equal(std::uint64_t value) const;

private:
    void release() noexcept;

    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Comm node_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
    int local_rank_ = 0;
    int local_size_ = 1;
};

/// Throws std::invalid_argument(message of the lowest rank whose `local_error` is not empty) on
/// every rank, or returns on every rank when all are empty: so that input checked rank by rank
/// (sizes, pointers) fails alike everywhere. Collective: one all-reduce, and two broadcasts when
/// something failed.
void agree_or_throw(const Communicator& comm, const std::string& local_error);

/// 64-bit FNV-1a digest of a byte range (to check with Communicator::all_equal that every rank
/// holds the same partition or matrix). Pure function.
std::uint64_t fnv1a(const void* data, std::size_t bytes,
                    std::uint64_t seed = 14695981039346656037ull);

/// fnv1a over the bytes of a vector's elements.
template <typename T>
std::uint64_t fnv1a(const std::vector<T>& v, std::uint64_t seed = 14695981039346656037ull)
{
    return fnv1a(v.data(), v.size() * sizeof(T), seed);
}

}  // namespace kbench::dist
