// The launch pipeline of one host thread driving one CUDA stream (kbench's model, used by
// models/gmres_comm_model.hpp and models/bicgstab_model.hpp; none of the five papers models it).
// Launches are asynchronous: the host pays launch_s per launch and runs ahead while the device
// works through the queue, so a stream of kernels advances at the slower of launch issue and
// execution, kernel by kernel. After a long kernel (an SpMV) the host is ahead and the short
// kernels behind it run back to back; a stream of short kernels leaves the device idle between
// launches. A synchronization (a value copied to the host) drains the queue: the host waits for the
// device, then pays the wake-up. Host work (an MPI call) after a synchronization adds to the time;
// without one it overlaps the queued kernels.
//
// Device time of one kernel: kernel_fixed_s + work_s for a kernel that streams data (work_s > 0:
// its bytes over the bandwidth they come at), node_s for one that moves nothing (a copy of a few
// words). A reduction (kbench's dot product: per-block partial sums, the last block to finish
// sums them, one launch since issue 30) costs reduction_fixed_s + work_s. The fixed costs are
// measured (kbench machine): what a streaming kernel, or a dot, takes beyond its bytes over
// bandwidth (the ramp-up and drain of a grid; the last block's sum of the partials); node_s is
// the device-side cost of an empty kernel (a replayed CUDA graph node).
// A run may measure its own host costs at its own size on kbench's launchers (harness/core/
// op_cost.hpp: the host's enqueue time per dot and per copy, and the tail of a synchronization
// on an idle device); where given they replace launch_s for those ops and bound the wake-up
// from below: a small system's time is the host's, and its host differs from run to run. Ops
// launched from the host, not replayed from a graph, also leave a gap on the device: an empty
// kernel then takes stream_node_s, and each op adds stream_node_s - node_s to its device time.
// Units: seconds. Bad costs throw std::invalid_argument naming the parameter.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::models {

/// Measured latencies of the pipeline, seconds; 0 leaves a term unpriced.
struct LaunchCosts {
    double launch_s = 0;        // host time per launch among back-to-back ones
    double sync_s = 0;          // one empty launch + stream synchronization, round trip
    double kernel_fixed_s = 0;  // device time a streaming kernel adds to bytes / bandwidth
    double reduction_fixed_s = 0;  // the same for a reduction (one launch, kbench's dot)
    double node_s = 0;          // device time of an empty kernel (CUDA graph node, replayed)
    // Measured by the run on kbench's own launchers at its size; 0: not measured.
    double reduction_launch_s = 0;  // host time per reduction launch (0: launch_s)
    double copy_launch_s = 0;       // host time per copy of a few values (0: launch_s)
    double sync_tail_s = 0;  // host time from the last launch to the return of a
                             // synchronization on an idle device: a dot, a copy of its value and
                             // a stream synchronization, less the two launches' host times
    double stream_node_s = 0;  // device time of an empty kernel launched into a busy stream;
                               // what it exceeds node_s by, every launched op adds (0: none)
};

/// Host and device clocks of one stream, advanced op by op (see the header comment).
class LaunchTimeline {
public:
    /// Throws std::invalid_argument for a negative or non-finite cost.
    explicit LaunchTimeline(const LaunchCosts& c) : c_{c}
    {
        check("launch_s", c.launch_s);
        check("sync_s", c.sync_s);
        check("kernel_fixed_s", c.kernel_fixed_s);
        check("reduction_fixed_s", c.reduction_fixed_s);
        check("node_s", c.node_s);
        check("reduction_launch_s", c.reduction_launch_s);
        check("copy_launch_s", c.copy_launch_s);
        check("sync_tail_s", c.sync_tail_s);
        check("stream_node_s", c.stream_node_s);
    }

    /// One asynchronous launch (kernel or copy) of work_s seconds of streaming (0: none). The
    /// device starts it once its launch has arrived and the previous op has ended.
    void kernel(double work_s)
    {
        check("work_s", work_s);
        launch(c_.launch_s, work_s > 0 ? c_.kernel_fixed_s + work_s : c_.node_s);
        work_ += work_s;
    }
    /// A reduction streaming work_s seconds of data: one launch (reduction_launch_s of host
    /// time when measured, else launch_s) of reduction_fixed_s + work_s (at least node_s).
    void reduction(double work_s)
    {
        check("work_s", work_s);
        launch(c_.reduction_launch_s > 0 ? c_.reduction_launch_s : c_.launch_s,
               std::max(c_.node_s, c_.reduction_fixed_s + work_s));
        work_ += work_s;
    }
    /// An asynchronous copy of a few values between host and device: copy_launch_s of host
    /// time when measured (else launch_s), node_s on the device.
    void copy()
    {
        launch(c_.copy_launch_s > 0 ? c_.copy_launch_s : c_.launch_s, c_.node_s);
    }
    /// One asynchronous op whose costs the caller measured or modeled whole (an SpMV): host_s
    /// to enqueue it, device_s on the device (at least node_s).
    void op(double host_s, double device_s)
    {
        check("host_s", host_s);
        check("device_s", device_s);
        launch(host_s, std::max(c_.node_s, device_s));
        work_ += device_s;
    }
    /// The host waits for the queue to drain, then wakes: the round trip less its own launch
    /// and empty kernel; and never returns before sync_tail_s after its last launch.
    void synchronize()
    {
        host_ = std::max(std::max(host_, device_) +
                             std::max(0.0, c_.sync_s - c_.launch_s - c_.node_s),
                         host_ + c_.sync_tail_s);
        ++syncs_;
    }
    /// seconds of host work (an MPI call); overlaps the queued kernels unless after a
    /// synchronize().
    void host(double seconds)
    {
        check("seconds", seconds);
        host_ += seconds;
        work_ += seconds;
    }

    /// Time until both clocks have stopped.
    double seconds() const noexcept { return std::max(host_, device_); }
    /// Sum of the work_s and host seconds given: seconds() with every latency 0 and nothing
    /// overlapped.
    double work_seconds() const noexcept { return work_; }
    /// Device time of the ops so far (what the device spent in them, gaps left out).
    double busy_seconds() const noexcept { return busy_; }
    long launches() const noexcept { return launches_; }
    long syncs() const noexcept { return syncs_; }

private:
    void launch(double host_s, double busy)
    {
        host_ += host_s;
        const double device_s = busy + std::max(0.0, c_.stream_node_s - c_.node_s);
        device_ = std::max(host_, device_) + device_s;
        busy_ += device_s;
        ++launches_;
    }
    static void check(const char* name, double x)
    {
        if (!(x >= 0) || !std::isfinite(x))
            throw std::invalid_argument(std::string("LaunchTimeline: ") + name + " = " +
                                        std::to_string(x) + ", expected a finite value >= 0");
    }

    LaunchCosts c_;
    double host_ = 0;
    double device_ = 0;
    double work_ = 0;
    double busy_ = 0;
    long launches_ = 0;
    long syncs_ = 0;
};

}  // namespace kbench::models
