//! The boundary's machinery: status codes, the per-thread last error, the panic guard and
//! the checked conversions of caller pointers into references and slices.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call did. Every function but the `_free` ones and the two string getters returns
/// one; on anything but `NAVSTUDIO_STATUS_OK` the reason is in [`navstudio_last_error`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavstudioStatus {
    /// Done.
    Ok = 0,
    /// A handle or an output pointer was null, or an array pointer was null with a non-zero
    /// length.
    NullPointer = 1,
    /// An argument is out of its range (a zero cost, an empty rectangle, a length that does
    /// not match, a misaligned array, a string that is not UTF-8 …).
    InvalidArgument = 2,
    /// The package could not be read (missing file, truncated, corrupted, newer format).
    Package = 3,
    /// No movement type with that name or index.
    UnknownMovementType = 4,
    /// A cell or position lies off the map (a finite position; NaN and infinities are
    /// `INVALID_ARGUMENT`).
    OffMap = 5,
    /// A cell or position is a wall for the movement type: a path's goal (every goal of a
    /// set), every source of a request, a trace's source, an order's goal (for every agent's
    /// type), an agent's position. The header keeps the old names
    /// `NAVSTUDIO_STATUS_GOAL_IS_WALL` and `NAVSTUDIO_STATUS_BLOCKED` as aliases.
    Wall = 6,
    /// Nothing can reach the goal: no source of a request, no agent of an order, not the
    /// source of a trace shares an island with it.
    Unreachable = 7,
    /// No live path, stamp or agent with that handle (never issued, released, or a path
    /// that re-planning after a rebuild could no longer route).
    NoSuchHandle = 8,
    /// The path has no direction here (at the goal, or off its route with no portal to head
    /// for), or following the flow from here does not reach the goal.
    NoFlow = 9,
    /// The caller's buffer is too small; the count it needs was written.
    BufferTooSmall = 10,
    /// The crowd was created on another world than the one passed.
    WrongWorld = 11,
    /// An earlier call panicked while changing this handle; only `_free` is allowed now.
    Poisoned = 12,
    /// A bug inside the library: it panicked. The message says where; please report it.
    /// (13 is not used: it was `BLOCKED`, now `WALL` or `OFF_MAP`.)
    Panic = 14,
}

/// A failed call: its status and a sentence for the last-error slot.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: NavstudioStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: NavstudioStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub fn null(what: &str) -> Self {
        Self::new(
            NavstudioStatus::NullPointer,
            format!("{what} is a null pointer"),
        )
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(NavstudioStatus::InvalidArgument, message)
    }

    fn panic(payload: &(dyn Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Self::new(
            NavstudioStatus::Panic,
            format!("internal error (a bug in navstudio, please report it): {what}"),
        )
    }
}

pub(crate) type Outcome = Result<(), Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A C string ends at the first NUL: drop any inside the message rather than lose it.
    let bytes: Vec<u8> = message.bytes().filter(|&b| b != 0).collect();
    let text = CString::new(bytes).unwrap_or_default();
    // `try_`: during thread teardown the slot may be gone; the message is then dropped
    // rather than panicking outside any guard.
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = text;
        }
    });
}

/// Runs an entry point's body: a panic becomes [`NavstudioStatus::Panic`], a failure its
/// status, each with its message stored for [`navstudio_last_error`].
pub(crate) fn guard(body: impl FnOnce() -> Outcome) -> NavstudioStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return NavstudioStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(payload) => Failure::panic(payload.as_ref()),
    };
    set_last_error(&failure.message);
    failure.status
}

/// Runs `body` on a handle; a panic inside marks the handle poisoned (`poison`), since it may
/// have stopped half-way through a change.
pub(crate) fn poison_on_panic<T>(
    target: &mut T,
    poison: impl FnOnce(&mut T),
    body: impl FnOnce(&mut T) -> Outcome,
) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| body(target))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            poison(target);
            Err(Failure::panic(payload.as_ref()))
        }
    }
}

/// The reason the last failed call on this thread failed, as a NUL-terminated UTF-8 sentence
/// ("" before any failure). A successful call leaves it as it was.
///
/// The pointer stays valid until the next call into this library on the same thread; copy
/// the text to keep it. Never null, never to be freed.
///
/// Threading: any thread; each thread has its own slot.
#[unsafe(no_mangle)]
pub extern "C" fn navstudio_last_error() -> *const c_char {
    // The slot lives as long as the thread; its buffer changes only when a later call on
    // this same thread fails, which the contract above rules out while the text is read.
    LAST_ERROR
        .try_with(|slot| slot.try_borrow().map(|s| s.as_ptr()).ok())
        .ok()
        .flatten()
        .unwrap_or(c"".as_ptr())
}

/// The library's version, `"MAJOR.MINOR.PATCH"`, NUL-terminated; static, never to be freed.
///
/// Threading: any thread.
#[unsafe(no_mangle)]
pub extern "C" fn navstudio_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// A slice from a caller's `(pointer, length)`: empty for length 0 (any pointer), else the
/// pointer must be non-null and aligned.
///
/// # Safety
/// When `len > 0`, `ptr` must point at `len` initialised `T`s that stay valid and unchanged
/// for `'a`.
pub(crate) unsafe fn slice_from<'a, T>(
    ptr: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    if !ptr.is_aligned() {
        return Err(Failure::invalid(format!(
            "{what} is not aligned for its type"
        )));
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Failure::invalid(format!(
            "{what}: length {len} is too large"
        )));
    }
    // SAFETY: non-null, aligned, the byte size fits isize (checked above); the caller
    // promises `len` live elements for 'a (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Copies `values` into a caller's array of `capacity` elements:
/// [`NavstudioStatus::BufferTooSmall`] when they do not fit (nothing copied). Writes through
/// the raw pointer, never a reference, since the caller's memory may be uninitialised.
///
/// # Safety
/// When `values` is not empty and it fits, `ptr` must point at `capacity` writable `T`s.
pub(crate) unsafe fn write_array<T: Copy>(
    ptr: *mut T,
    capacity: usize,
    values: &[T],
    what: &str,
) -> Outcome {
    if capacity < values.len() {
        return Err(Failure::new(
            NavstudioStatus::BufferTooSmall,
            format!(
                "{what} has room for {capacity}, {} are needed",
                values.len()
            ),
        ));
    }
    if values.is_empty() {
        return Ok(());
    }
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    if !ptr.is_aligned() {
        return Err(Failure::invalid(format!(
            "{what} is not aligned for its type"
        )));
    }
    // SAFETY: non-null, aligned (checked), room for `values.len()` elements (checked against
    // `capacity`, which the caller vouches for); a caller buffer cannot overlap our Vec.
    unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), ptr, values.len()) };
    Ok(())
}

/// Writes `value` through a caller's output pointer.
///
/// # Safety
/// `out`, when non-null and aligned, must point at writable memory for one `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T, what: &str) -> Outcome {
    if out.is_null() {
        return Err(Failure::null(what));
    }
    if !out.is_aligned() {
        return Err(Failure::invalid(format!(
            "{what} is not aligned for its type"
        )));
    }
    // SAFETY: non-null and aligned (checked); writable per this function's contract. `write`
    // does not drop the old contents, which may be uninitialised.
    unsafe { out.write(value) };
    Ok(())
}

/// A UTF-8 string from a caller's NUL-terminated C string.
///
/// # Safety
/// `s`, when non-null, must point at a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn str_from<'a>(s: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if s.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-null (checked); NUL-terminated and live per this function's contract.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map_err(|_| Failure::invalid(format!("{what} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        // SAFETY: never null, NUL-terminated, valid until the next call on this thread.
        unsafe { CStr::from_ptr(navstudio_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_sentence() {
        let status = guard(|| panic!("boom at cell (3, 4)"));
        assert_eq!(status, NavstudioStatus::Panic);
        assert!(
            last_error().contains("boom at cell (3, 4)"),
            "{}",
            last_error()
        );
        let status = guard(|| Err(Failure::invalid("bad\0 input")));
        assert_eq!(status, NavstudioStatus::InvalidArgument);
        assert_eq!(last_error(), "bad input");
        // Success leaves the last error alone.
        assert_eq!(guard(|| Ok(())), NavstudioStatus::Ok);
        assert_eq!(last_error(), "bad input");
    }

    #[test]
    fn a_panic_while_changing_a_handle_poisons_it() {
        let mut poisoned = false;
        let outcome = poison_on_panic(&mut poisoned, |p| *p = true, |_| panic!("half-way"));
        assert!(outcome.is_err_and(|f| f.status == NavstudioStatus::Panic));
        assert!(poisoned);
        let mut clean = false;
        assert!(poison_on_panic(&mut clean, |p| *p = true, |_| Ok(())).is_ok());
        assert!(!clean);
    }
}
