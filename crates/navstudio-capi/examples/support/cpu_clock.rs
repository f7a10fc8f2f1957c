//! CPU clocks for the examples that time calls (Linux; 0 elsewhere): on a machine shared
//! with other work, wall time includes the waits for a core, CPU time does not.

#[repr(C)]
struct Timespec {
    secs: i64,
    nanos: i64,
}

unsafe extern "C" {
    /// POSIX.
    fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
}

/// `CLOCK_PROCESS_CPUTIME_ID` and `CLOCK_THREAD_CPUTIME_ID` on Linux.
const PROCESS: i32 = 2;
const THREAD: i32 = 3;

/// Nanoseconds of CPU on `clock`, 0 when it cannot be read.
fn read_ns(clock: i32) -> u64 {
    if !cfg!(target_os = "linux") {
        return 0;
    }
    let mut t = Timespec { secs: 0, nanos: 0 };
    // SAFETY: `t` is a writable timespec; `clock` is one of the Linux CPU clocks above.
    let ok = unsafe { clock_gettime(clock, &raw mut t) } == 0;
    if ok {
        (t.secs as u64) * 1_000_000_000 + t.nanos as u64
    } else {
        0
    }
}

/// CPU time of the process in seconds.
#[allow(dead_code)]
pub fn process_s() -> f64 {
    read_ns(PROCESS) as f64 * 1e-9
}

/// CPU time of the calling thread in µs.
#[allow(dead_code)]
pub fn thread_us() -> u64 {
    read_ns(THREAD) / 1000
}
