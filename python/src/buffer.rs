//! Zero-copy access to any object that exports the buffer protocol as
//! bytes (`bytes`, `bytearray`, `memoryview`, `mmap`, `array.array('B')`,
//! numpy arrays of `uint8`), for abi3 wheels down to CPython 3.9.
//!
//! PyO3's `PyBuffer` exists only for the limited API of 3.11 and later
//! (that is when `Py_buffer` entered the *stable ABI* documentation), but
//! `PyObject_GetBuffer`, `PyBuffer_Release` and the layout of `Py_buffer`
//! have been exported and unchanged since CPython 3.3, so this module
//! declares them itself. It is the crate's only `unsafe` code.
//!
//! The rules are pyca/cryptography's, so that code moving between the two
//! meets the same errors: a buffer is requested with its format and
//! strides; an item format other than unsigned bytes (`B` or `c`: numpy
//! `int8`, `uint16`, `float64`, `bool`, … ) is a `TypeError`, a buffer
//! that is not C-contiguous (a strided numpy view, a Fortran-order array)
//! a `BufferError`, a read-only output a `TypeError`. The bytes are read in
//! place, with the GIL released; the caller must not resize or write an
//! input buffer from another thread while an aesflow call is using it (as
//! with any C extension that releases the GIL).
//!
//! An output may share memory with any input (`encrypt_into(nonce, data,
//! aad, buf)` with `aad` a slice of `buf`, say): [`write_into`] copies every
//! input that overlaps the output before the output is written, so the
//! result is that of separate buffers.

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_char, c_int, c_void};

/// CPython's `Py_buffer` (Include/pybuffer.h), identical from 3.3 to 3.14.
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
    fn PyBuffer_IsContiguous(view: *const RawBuffer, order: c_char) -> c_int;
}

/// `PyBUF_RECORDS_RO`: the format, the shape and the strides (no
/// suboffsets), read-only or not; writability is checked afterwards, so a
/// read-only output raises pyca's `TypeError` rather than the exporter's
/// `BufferError`.
const PYBUF_RECORDS_RO: c_int = 0x4 | 0x8 | 0x10;

/// Whether a buffer format (`struct` syntax) is one unsigned byte per item:
/// `B` or `c`, with at most a byte-order prefix (NULL means `B`).
fn is_byte_format(format: *const c_char) -> bool {
    if format.is_null() {
        return true;
    }
    // SAFETY: a non-NULL `format` of a filled `Py_buffer` is a
    // NUL-terminated string owned by the exporter while the view is held.
    let f = unsafe { std::ffi::CStr::from_ptr(format) }.to_bytes();
    matches!(
        f,
        [b'B' | b'c'] | [b'@' | b'=' | b'<' | b'>' | b'!', b'B' | b'c']
    )
}

/// An exported buffer, released on drop. Not `Send` (raw pointers), so it
/// never leaves the thread that holds it; only the byte slices it lends are
/// handed to code that runs with the GIL released.
pub struct View {
    raw: Box<RawBuffer>,
}

impl View {
    fn get(obj: &Bound<'_, PyAny>, writable: bool, what: &str) -> PyResult<View> {
        let mut raw = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        let kind = || {
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        };
        // SAFETY: `obj` is a live object (we hold a reference and the GIL);
        // `raw` points to writable, properly laid out `Py_buffer` storage.
        // On success the exporter fills it and we own one release.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *raw, PYBUF_RECORDS_RO) };
        if rc != 0 {
            let py = obj.py();
            let cause = PyErr::take(py);
            let kind = kind();
            let msg = if writable {
                format!(
                    "{what} must be a writable bytes-like object (bytearray, memoryview, numpy uint8 array), not {kind}"
                )
            } else {
                format!(
                    "{what} must be a bytes-like object (bytes, bytearray, memoryview, numpy uint8 array), not {kind}"
                )
            };
            // An exporter that cannot give a strided view raises
            // BufferError itself; keep that class.
            let err = match &cause {
                Some(c) if c.is_instance_of::<PyBufferError>(py) => PyBufferError::new_err(msg),
                _ => PyTypeError::new_err(msg),
            };
            if let Some(c) = cause {
                err.set_cause(py, Some(c));
            }
            return Err(err);
        }
        let v = View { raw };
        if !is_byte_format(v.raw.format) || v.raw.itemsize != 1 {
            let f = if v.raw.format.is_null() {
                Default::default()
            } else {
                // SAFETY: as in `is_byte_format`.
                unsafe { std::ffi::CStr::from_ptr(v.raw.format) }.to_string_lossy()
            };
            return Err(PyTypeError::new_err(format!(
                "{what} must be a buffer of bytes (format 'B'), not {} of format '{f}'",
                kind()
            )));
        }
        // SAFETY: `v.raw` was filled by a successful PyObject_GetBuffer.
        if unsafe { PyBuffer_IsContiguous(&*v.raw, b'C' as c_char) } == 0 {
            return Err(PyBufferError::new_err(format!(
                "{what}: buffer is not contiguous (pass a C-contiguous copy, e.g. numpy.ascontiguousarray)"
            )));
        }
        if writable && v.raw.readonly != 0 {
            return Err(PyTypeError::new_err(format!(
                "{what} must be a writable buffer, not a read-only {}",
                kind()
            )));
        }
        if v.raw.len < 0 || (v.raw.len > 0 && v.raw.buf.is_null()) {
            return Err(PyTypeError::new_err(format!("{what}: invalid buffer")));
        }
        Ok(v)
    }

    /// A read-only view of `obj` (`what` names the argument in errors).
    pub fn read(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<View> {
        Self::get(obj, false, what)
    }

    /// A writable view of `obj`.
    pub fn write(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<View> {
        Self::get(obj, true, what)
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.raw.len as usize
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        if self.raw.len == 0 {
            return &[];
        }
        // SAFETY: the exporter guarantees `len` contiguous bytes at `buf`
        // (PyBUF_SIMPLE) for as long as the view is held, i.e. for `self`'s
        // lifetime, which bounds the returned slice. Exporters may not resize
        // while a view is exported.
        unsafe { std::slice::from_raw_parts(self.raw.buf as *const u8, self.len()) }
    }

    /// The bytes, writable (only for views made by [`View::write`]).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        assert!(self.raw.readonly == 0, "a read-only view");
        if self.raw.len == 0 {
            return &mut [];
        }
        // SAFETY: as in `bytes`, and the exporter granted PyBUF_WRITABLE;
        // `&mut self` makes this the only slice lent by this view.
        unsafe { std::slice::from_raw_parts_mut(self.raw.buf as *mut u8, self.len()) }
    }

    /// The first `n` bytes (at most [`View::len`]), writable (only for
    /// views made by [`View::write`]); the rest of the buffer is not
    /// borrowed, so other views may read it meanwhile.
    pub fn prefix_mut(&mut self, n: usize) -> &mut [u8] {
        assert!(self.raw.readonly == 0, "a read-only view");
        assert!(n <= self.len(), "a prefix of the buffer");
        if n == 0 {
            return &mut [];
        }
        // SAFETY: as in `bytes_mut`, for the first `n` of its `len` bytes.
        unsafe { std::slice::from_raw_parts_mut(self.raw.buf as *mut u8, n) }
    }

    /// The address of the first byte.
    pub fn addr(&self) -> usize {
        self.raw.buf as usize
    }

    /// The bytes' address range.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.addr()..self.addr() + self.len()
    }

    /// Whether this view's bytes begin at the first byte of `other`'s.
    pub fn starts_at(&self, other: &View) -> bool {
        std::ptr::eq(self.raw.buf, other.raw.buf)
    }

    /// Whether this view's bytes overlap `other`'s (in-place calls such as
    /// `encrypt_into(data=b, buf=b)` must not alias a `&[u8]` with a
    /// `&mut [u8]`).
    pub fn overlaps(&self, other: &View) -> bool {
        let a = self.raw.buf as usize;
        let b = other.raw.buf as usize;
        self.len() > 0 && other.len() > 0 && a < b + other.len() && b < a + self.len()
    }
}

impl Drop for View {
    fn drop(&mut self) {
        Python::attach(|_| {
            // SAFETY: the view was filled by a successful PyObject_GetBuffer
            // and is released exactly once, with the GIL held.
            unsafe { PyBuffer_Release(&mut *self.raw) }
        });
    }
}

/// An optional argument: `None` is empty.
pub fn read_opt(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<View>> {
    match obj {
        Some(o) if !o.is_none() => View::read(o, what).map(Some),
        _ => Ok(None),
    }
}

/// The `*_into` pattern: `f(inputs, out)` with the GIL released, where
/// `out` is the first `n` bytes of the writable buffer `buf` (`ValueError`
/// if it is shorter, or with `exact` longer) and `inputs` are the bytes of
/// `inputs` (`None`: empty). An input that shares memory with `buf` is
/// copied first (the copy zeroized afterwards), so `f` never sees an input
/// change under its writes: `encrypt_into(nonce, data, aad, buf)` with the
/// nonce or the associated data inside `buf` gives the tag of separate
/// buffers.
pub fn write_into<T: Send, const N: usize>(
    py: Python<'_>,
    inputs: [Option<&View>; N],
    buf: &Bound<'_, PyAny>,
    n: usize,
    exact: bool,
    f: impl FnOnce([&[u8]; N], &mut [u8]) -> T + Send,
) -> PyResult<T> {
    write_into_data(py, inputs, None, buf, n, exact, |ins, data, out| {
        let Data::Separate(_) = data else {
            unreachable!("no data input given")
        };
        f(ins, out)
    })
}

/// The main input of a `*_into` call ([`write_into_data`]) as the callee
/// sees it.
pub enum Data<'a> {
    /// Bytes that do not share memory with the output (a copy if they
    /// did, other than as below).
    Separate(&'a [u8]),
    /// The input begins where the output begins: its first bytes (up to
    /// the output's `n`) are the output's, to be transformed in place.
    InPlace {
        /// The input's bytes past the output's `n` (e.g. the tag after a
        /// ciphertext decrypted into its own first bytes); empty if the
        /// input is not longer than the output.
        beyond: &'a [u8],
    },
}

/// [`write_into`] with a main input `data` that may lie at the very start
/// of the output (`encrypt_into(nonce, buf[:-16], aad, buf)`): then `f`
/// gets [`Data::InPlace`] and transforms the output in place, with no copy
/// of the input (a copy of a large input costs a fresh allocation and its
/// page faults, more than the cipher); any other overlap is copied first,
/// as for `inputs`.
pub fn write_into_data<T: Send, const N: usize>(
    py: Python<'_>,
    inputs: [Option<&View>; N],
    data: Option<&View>,
    buf: &Bound<'_, PyAny>,
    n: usize,
    exact: bool,
    f: impl FnOnce([&[u8]; N], Data<'_>, &mut [u8]) -> T + Send,
) -> PyResult<T> {
    let mut b = View::write(buf, "buf")?;
    if b.len() < n || (exact && b.len() != n) {
        let least = if exact { "" } else { "at least " };
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "buffer must be {least}{n} bytes"
        )));
    }
    let copy_if_overlapping = |v: Option<&View>| {
        zeroize::Zeroizing::new(match v {
            Some(v) if v.overlaps(&b) => v.bytes().to_vec(),
            _ => Vec::new(),
        })
    };
    let copies: [zeroize::Zeroizing<Vec<u8>>; N] =
        std::array::from_fn(|i| copy_if_overlapping(inputs[i]));
    let ins: [&[u8]; N] = std::array::from_fn(|i| match inputs[i] {
        Some(v) if v.overlaps(&b) => &copies[i][..],
        Some(v) => v.bytes(),
        None => &[][..],
    });
    // In place: the data starts at the output's first byte. Its bytes past
    // `n` lie outside the output's `n` bytes, but may lie in the rest of a
    // longer `buf`: copied then.
    let in_place = data.is_some_and(|d| d.len() > 0 && d.starts_at(&b) && n > 0);
    let held;
    let data = match data {
        Some(d) if in_place => {
            let beyond = d.bytes().get(n..).unwrap_or(&[]);
            held = zeroize::Zeroizing::new(beyond.to_vec());
            Data::InPlace {
                beyond: if b.len() > n { &held[..] } else { beyond },
            }
        }
        Some(d) if d.overlaps(&b) => {
            held = zeroize::Zeroizing::new(d.bytes().to_vec());
            Data::Separate(&held[..])
        }
        Some(d) => Data::Separate(d.bytes()),
        None => Data::Separate(&[]),
    };
    let out = &mut b.bytes_mut()[..n];
    Ok(py.detach(|| f(ins, data, out)))
}

/// A raw pointer moved into the GIL-free closures of [`new_bytes_from`]
/// and [`new_bytes_many_lazy`].
#[derive(Clone, Copy)]
struct SendPtr(*mut u8);
// SAFETY: the pointer is to the buffer of a `bytes` object that no other
// code can reach yet (just created, one reference, held by the caller);
// the threads that share it write disjoint ranges.
unsafe impl Send for SendPtr {}
// SAFETY: as for `Send`: shared only to write disjoint ranges.
unsafe impl Sync for SendPtr {}

/// A new uninitialised `bytes` of `len` bytes and its buffer.
fn alloc_bytes(py: Python<'_>, len: usize) -> PyResult<(Bound<'_, pyo3::types::PyBytes>, SendPtr)> {
    let n = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("output too large"))?;
    // SAFETY: with a NULL source CPython allocates `len` uninitialised
    // bytes (plus a NUL) and returns a new reference, or NULL with an
    // exception set, which `from_owned_ptr_or_err` turns into an error.
    let obj = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), n))?
    };
    // SAFETY: `obj` is a bytes object; its buffer lives as long as `obj`.
    let p = unsafe { ffi::PyBytes_AsString(obj.as_ptr()) }.cast::<u8>();
    huge_pages(p, len);
    Ok((obj.cast_into::<pyo3::types::PyBytes>()?, SendPtr(p)))
}

/// Outputs at least this long ask for transparent huge pages.
const HUGE_MIN: usize = 8 << 20;

/// Ask the kernel to back the whole 2 MiB pages inside the fresh buffer
/// `p..p + len` with transparent huge pages (`MADV_HUGEPAGE`; Linux, an
/// output of [`HUGE_MIN`] bytes or more): a large new buffer comes from
/// `mmap`, and its first touch otherwise takes one page fault per 4 KiB
/// (each tens of µs on a busy virtual machine), which bounds a one-shot
/// `encrypt` of tens of MiB, for any library, more than the cipher does.
/// Only pages wholly inside the buffer are advised (no other allocation
/// shares them); a refusal (THP disabled) changes nothing.
fn huge_pages(p: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if len < HUGE_MIN {
            return;
        }
        let start = (p as usize).next_multiple_of(HUGE);
        let end = (p as usize + len) / HUGE * HUGE;
        if end > start {
            // SAFETY: `start..end` lies inside the `len` bytes just
            // allocated for this object, in whole pages that no other
            // allocation uses; the advice changes how they are backed,
            // never their contents.
            let _ = unsafe {
                rustix::mm::madvise(
                    start as *mut std::ffi::c_void,
                    end - start,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, len);
}

/// Bytes per piece when a large new buffer is initialised on the pool.
const INIT_PIECE: usize = 256 * 1024;

/// A new `bytes` of `len` bytes that starts with a copy of `init` (the
/// rest zeroed), then `f(buffer)`; all with the GIL released. The copy and
/// the zeroes are the buffer's initialisation (one pass, no zeroing before
/// the copy), spread over the pool for a large buffer, so the first touch
/// of its fresh pages (the page faults) runs on every core when it is
/// large. On error the object is dropped unseen.
pub fn new_bytes_from<'py>(
    py: Python<'py>,
    len: usize,
    init: &[u8],
    f: impl FnOnce(&mut [u8]) -> PyResult<()> + Send,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    assert!(init.len() <= len, "the initial bytes fit the buffer");
    let (obj, p) = alloc_bytes(py, len)?;
    py.detach(move || {
        let pieces = len.div_ceil(INIT_PIECE);
        let fill = |i: usize| {
            let start = i * INIT_PIECE;
            let end = len.min(start + INIT_PIECE);
            let copied = init.len().clamp(start, end);
            let dst = p;
            // SAFETY: `start..end` lies inside the `len` bytes of the new
            // object and pieces are disjoint; `init[start..copied]` (a
            // caller's buffer) cannot overlap a buffer allocated just now.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    init.as_ptr().add(start.min(init.len())),
                    dst.0.add(start),
                    copied - start,
                );
                std::ptr::write_bytes(dst.0.add(copied), 0, end - copied);
            }
        };
        // Below `HUGE_MIN` the buffer usually comes from the allocator's heap
        // (pages already mapped): one hand-off to the pool less is worth
        // more than spreading a first touch that mostly does not happen.
        if pieces > 1 && len >= HUGE_MIN {
            crate::pool()
                .try_for_each_index(pieces, |i| -> Result<(), ()> {
                    fill(i);
                    Ok(())
                })
                .ok();
        } else {
            (0..pieces).for_each(fill);
        }
        // SAFETY: every byte of the object was initialised above, and only
        // this closure holds the buffer (the object is not visible to
        // Python yet).
        let out = unsafe { std::slice::from_raw_parts_mut(p.0, len) };
        f(out)
    })?;
    Ok(obj)
}

/// A new `bytes` of `len` bytes, zeroed and then filled by `f`, both with
/// the GIL released: a large output costs no GIL-held time (PyO3's
/// `PyBytes::new_with` zero-fills with the GIL held). On error the object
/// is dropped unseen.
pub fn new_bytes<'py>(
    py: Python<'py>,
    len: usize,
    f: impl FnOnce(&mut [u8]) -> PyResult<()> + Send,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    new_bytes_from(py, len, &[], f)
}

/// The buffer of a new `bytes` object not yet initialised: its ranges are
/// lent out zeroed, one at a time ([`Uninit::zeroed`]), so that a caller
/// that fills a large output piece by piece initialises each piece just
/// before writing it (while it is in cache) instead of in one pass first.
pub struct Uninit {
    p: SendPtr,
    len: usize,
    /// Bytes `0..init` are initialised.
    init: usize,
}

impl Uninit {
    /// The buffer's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes `r` (inside the buffer; a range past the initialised ones is
    /// zeroed first), writable.
    pub fn zeroed(&mut self, r: std::ops::Range<usize>) -> &mut [u8] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "a range inside the buffer"
        );
        if r.end > self.init {
            // SAFETY: `init..r.end` lies inside the object's `len` bytes,
            // which only this value writes (the object is not visible to
            // Python yet).
            unsafe { std::ptr::write_bytes(self.p.0.add(self.init), 0, r.end - self.init) };
            self.init = r.end;
        }
        // SAFETY: `r` lies inside `0..init`, initialised bytes of the
        // object; `&mut self` makes this the only slice lent.
        unsafe { std::slice::from_raw_parts_mut(self.p.0.add(r.start), r.end - r.start) }
    }
}

/// New `bytes` objects of `lens[i]` bytes, handed to `f` uninitialised
/// ([`Uninit`]) with the GIL released; whatever `f` leaves unwritten is
/// zeroed before they are returned. On error the objects are dropped
/// unseen.
pub fn new_bytes_many_lazy<'py>(
    py: Python<'py>,
    lens: &[usize],
    f: impl FnOnce(&mut [Uninit]) -> PyResult<()> + Send,
) -> PyResult<Vec<Bound<'py, pyo3::types::PyBytes>>> {
    let mut objs = Vec::with_capacity(lens.len());
    let mut bufs = Vec::with_capacity(lens.len());
    for &len in lens {
        let (obj, p) = alloc_bytes(py, len)?;
        bufs.push(Uninit { p, len, init: 0 });
        objs.push(obj);
    }
    py.detach(move || {
        f(&mut bufs)?;
        for b in &mut bufs {
            b.zeroed(0..b.len);
        }
        Ok::<(), PyErr>(())
    })?;
    Ok(objs)
}
