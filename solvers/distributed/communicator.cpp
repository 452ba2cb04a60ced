// MPI session, communicator and error checking; see communicator.hpp.
#include "solvers/distributed/communicator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

namespace kbench::dist {

namespace detail {

std::string mpi_error_string(int code)
{
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error code " + std::to_string(code);
    std::string out(text, static_cast<std::size_t>(length));
    int cls = code;
    if (MPI_Error_class(code, &cls) == MPI_SUCCESS && cls != code) {
        char ctext[MPI_MAX_ERROR_STRING] = {};
        int clength = 0;
        if (MPI_Error_string(cls, ctext, &clength) == MPI_SUCCESS)
            out += " (class: " + std::string(ctext, static_cast<std::size_t>(clength)) + ")";
    }
    return out;
}

void throw_mpi_error(int code, const char* call, const char* file, int line)
{
    throw mpi_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                    " failed: " + mpi_error_string(code));
}

template <>
MPI_Datatype mpi_type<float>()
{
    return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>()
{
    return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type<int>()
{
    return MPI_INT;
}
template <>
MPI_Datatype mpi_type<std::int64_t>()
{
    return MPI_INT64_T;
}
template <>
MPI_Datatype mpi_type<std::uint64_t>()
{
    return MPI_UINT64_T;
}
template <>
MPI_Datatype mpi_type<char>()
{
    return MPI_CHAR;
}

}  // namespace detail

// ---- MpiSession ----------------------------------------------------------------------------

MpiSession::MpiSession(int* argc, char*** argv)
{
    if (active()) return;
    int provided = 0;
    KBENCH_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    owner_ = true;
}

MpiSession::~MpiSession()
{
    if (!owner_) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

bool MpiSession::active()
{
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized != 0 && finalized == 0;
}

// ---- Communicator --------------------------------------------------------------------------

Communicator::Communicator(MPI_Comm parent)
{
    if (!MpiSession::active())
        throw std::logic_error("kbench::dist::Communicator: MPI is not initialized (create a "
                               "kbench::dist::MpiSession first)");
    KBENCH_MPI_CHECK(MPI_Comm_dup(parent, &comm_));
    try {
        KBENCH_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
        KBENCH_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
        KBENCH_MPI_CHECK(MPI_Comm_size(comm_, &size_));
        KBENCH_MPI_CHECK(
            MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_));
        KBENCH_MPI_CHECK(MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN));
        KBENCH_MPI_CHECK(MPI_Comm_rank(node_, &local_rank_));
        KBENCH_MPI_CHECK(MPI_Comm_size(node_, &local_size_));
    } catch (...) {
        release();
        throw;
    }
}

Communicator::~Communicator() { release(); }

Communicator::Communicator(Communicator&& other) noexcept
    : comm_{std::exchange(other.comm_, MPI_COMM_NULL)},
      node_{std::exchange(other.node_, MPI_COMM_NULL)},
      rank_{other.rank_},
      size_{other.size_},
      local_rank_{other.local_rank_},
      local_size_{other.local_size_}
{}

Communicator& Communicator::operator=(Communicator&& other) noexcept
{
    if (this != &other) {
        release();
        comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
        node_ = std::exchange(other.node_, MPI_COMM_NULL);
        rank_ = other.rank_;
        size_ = other.size_;
        local_rank_ = other.local_rank_;
        local_size_ = other.local_size_;
    }
    return *this;
}

void Communicator::release() noexcept
{
    // After MPI_Finalize no MPI call is allowed; the handles simply go away with the library.
    if (MpiSession::active()) {
        if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }
    node_ = MPI_COMM_NULL;
    comm_ = MPI_COMM_NULL;
}

void Communicator::barrier() const { KBENCH_MPI_CHECK(MPI_Barrier(comm_)); }

template <typename T>
void Communicator::allreduce_sum(T* values, int count) const
{
    if (count < 0)
        throw std::invalid_argument("Communicator::allreduce_sum: count = " +
                                    std::to_string(count) + ", expected >= 0");
    if (count > 0 && values == nullptr)
        throw std::invalid_argument("Communicator::allreduce_sum: values is null with count = " +
                                    std::to_string(count));
    if (count == 0) return;
    KBENCH_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, values, count, detail::mpi_type<T>(), MPI_SUM, comm_));
}

template <typename T>
T Communicator::allreduce_max(T value) const
{
    KBENCH_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, &value, 1, detail::mpi_type<T>(), MPI_MAX, comm_));
    return value;
}

template <typename T>
T Communicator::allreduce_min(T value) const
{
    KBENCH_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, &value, 1, detail::mpi_type<T>(), MPI_MIN, comm_));
    return value;
}

void Communicator::broadcast(void* data, std::size_t bytes, int root) const
{
    if (root < 0 || root >= size_)
        throw std::invalid_argument("Communicator::broadcast: root = " + std::to_string(root) +
                                    ", expected in [0, size = " + std::to_string(size_) + ")");
    // MPI counts are int: send large buffers in chunks.
    constexpr std::size_t chunk = static_cast<std::size_t>(std::numeric_limits<int>::max());
    auto* p = static_cast<char*>(data);
    for (std::size_t done = 0; done < bytes; done += chunk) {
        const std::size_t n = std::min(chunk, bytes - done);
        KBENCH_MPI_CHECK(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, comm_));
    }
}

bool Communicator::all_equal(std::uint64_t value) const
{
    return allreduce_min(value) == allreduce_max(value);
}

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t seed)
{
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = seed;
    for (std::size_t i = 0; i < bytes; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

#define KBENCH_INSTANTIATE(T)                                               \
    template void Communicator::allreduce_sum<T>(T*, int) const;           \
    template T Communicator::allreduce_max<T>(T) const;                    \
    template T Communicator::allreduce_min<T>(T) const;
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
KBENCH_INSTANTIATE(int)
KBENCH_INSTANTIATE(std::int64_t)
KBENCH_INSTANTIATE(std::uint64_t)
#undef KBENCH_INSTANTIATE

void agree_or_throw(const Communicator& comm, const std::string& local_error)
{
    const int first = comm.allreduce_min(local_error.empty() ? comm.size() : comm.rank());
    if (first == comm.size()) return;
    std::uint64_t length = local_error.size();
    comm.broadcast(&length, sizeof(length), first);
    std::string message = comm.rank() == first ? local_error : std::string(length, ' ');
    comm.broadcast(message.data(), length, first);
    throw std::invalid_argument(message);
}


}  // namespace kbench::dist
