//! Zero-copy access to any object that exports the buffer protocol
//! (`bytes`, `bytearray`, `memoryview`, `mmap`, numpy arrays of any dtype,
//! …), for abi3 wheels down to CPython 3.9.
//!
//! PyO3's `PyBuffer` exists only for the limited API of 3.11 and later
//! (that is when `Py_buffer` entered the *stable ABI* documentation), but
//! `PyObject_GetBuffer`, `PyBuffer_Release` and the layout of `Py_buffer`
//! have been exported and unchanged since CPython 3.3, so this module
//! declares them itself. It is the crate's only `unsafe` code.
//!
//! A buffer is requested with `PyBUF_SIMPLE` (plus `PyBUF_WRITABLE` for an
//! output): the exporter must hand out one C-contiguous run of bytes, or
//! raise (a non-contiguous numpy view raises `BufferError`). The bytes are
//! read in place, with the GIL released; the caller must not resize or
//! write an input buffer from another thread while an aesflow call is using
//! it (as with any C extension that releases the GIL).

use pyo3::exceptions::PyTypeError;
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
}

const PYBUF_SIMPLE: c_int = 0;
const PYBUF_WRITABLE: c_int = 1;

/// An exported buffer, released on drop. Not `Send` (raw pointers), so it
/// never leaves the thread that holds it; only the byte slices it lends are
/// handed to code that runs with the GIL released.
pub struct View {
    raw: Box<RawBuffer>,
}

impl View {
    fn get(obj: &Bound<'_, PyAny>, flags: c_int, what: &str) -> PyResult<View> {
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
        // SAFETY: `obj` is a live object (we hold a reference and the GIL);
        // `raw` points to writable, properly laid out `Py_buffer` storage.
        // On success the exporter fills it and we own one release.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *raw, flags) };
        if rc != 0 {
            let py = obj.py();
            let cause = PyErr::take(py);
            let kind = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            let msg = if flags & PYBUF_WRITABLE != 0 {
                format!(
                    "{what} must be a writable, contiguous buffer (bytearray, memoryview, numpy array), not {kind}"
                )
            } else {
                format!(
                    "{what} must be a contiguous bytes-like object (bytes, bytearray, memoryview, numpy array), not {kind}"
                )
            };
            let err = PyTypeError::new_err(msg);
            if let Some(c) = cause {
                err.set_cause(py, Some(c));
            }
            return Err(err);
        }
        let v = View { raw };
        if v.raw.len < 0 || (v.raw.len > 0 && v.raw.buf.is_null()) {
            return Err(PyTypeError::new_err(format!("{what}: invalid buffer")));
        }
        Ok(v)
    }

    /// A read-only view of `obj` (`what` names the argument in errors).
    pub fn read(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<View> {
        Self::get(obj, PYBUF_SIMPLE, what)
    }

    /// A writable view of `obj`.
    pub fn write(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<View> {
        let v = Self::get(obj, PYBUF_SIMPLE | PYBUF_WRITABLE, what)?;
        if v.raw.readonly != 0 {
            return Err(PyTypeError::new_err(format!(
                "{what} must be a writable buffer"
            )));
        }
        Ok(v)
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

/// The `*_into` pattern: `f(input, out)` with the GIL released, where `out`
/// is the first `n` bytes of the writable buffer `buf` (`ValueError` if it
/// is shorter, or with `exact` longer) and `input` is `data`'s bytes (copied
/// first only if they overlap `buf`).
pub fn write_into<T: Send>(
    py: Python<'_>,
    data: &View,
    buf: &Bound<'_, PyAny>,
    n: usize,
    exact: bool,
    f: impl FnOnce(&[u8], &mut [u8]) -> T + Send,
) -> PyResult<T> {
    let mut b = View::write(buf, "buf")?;
    if b.len() < n || (exact && b.len() != n) {
        let least = if exact { "" } else { "at least " };
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "buffer must be {least}{n} bytes"
        )));
    }
    let mut copy = zeroize::Zeroizing::new(Vec::new());
    let input = input_for(data, &b, &mut copy);
    let out = &mut b.bytes_mut()[..n];
    Ok(py.detach(|| f(input, out)))
}

/// The input as a slice, copied only if it overlaps the output view (then
/// the copy is zeroized by the caller's `Zeroizing`).
fn input_for<'a>(
    input: &'a View,
    output: &View,
    copy: &'a mut zeroize::Zeroizing<Vec<u8>>,
) -> &'a [u8] {
    if input.overlaps(output) {
        copy.extend_from_slice(input.bytes());
        copy
    } else {
        input.bytes()
    }
}

/// A raw pointer moved into the GIL-free closure of [`new_bytes_many`].
struct SendPtr(*mut u8);
// SAFETY: the pointer is to the buffer of a `bytes` object that no other
// code can reach yet (just created, one reference, held by the caller).
unsafe impl Send for SendPtr {}

/// A new `bytes` of `len` bytes, zeroed and then filled by `f`, both with
/// the GIL released: a large output costs no GIL-held time (PyO3's
/// `PyBytes::new_with` zero-fills with the GIL held). On error the object
/// is dropped unseen.
pub fn new_bytes<'py>(
    py: Python<'py>,
    len: usize,
    f: impl FnOnce(&mut [u8]) -> PyResult<()> + Send,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let mut one = new_bytes_many(py, &[len], |mut outs| f(outs.remove(0)))?;
    Ok(one.remove(0))
}

/// New `bytes` objects of `lens[i]` bytes, zeroed and then filled by `f`
/// (which gets their buffers in order), all with the GIL released, as
/// [`new_bytes`]; only their allocation holds the GIL (uninitialised, so
/// it touches no page). On error the objects are dropped unseen.
pub fn new_bytes_many<'py>(
    py: Python<'py>,
    lens: &[usize],
    f: impl FnOnce(Vec<&mut [u8]>) -> PyResult<()> + Send,
) -> PyResult<Vec<Bound<'py, pyo3::types::PyBytes>>> {
    let mut objs = Vec::with_capacity(lens.len());
    let mut bufs = Vec::with_capacity(lens.len());
    for &len in lens {
        let n = ffi::Py_ssize_t::try_from(len)
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("output too large"))?;
        // SAFETY: with a NULL source CPython allocates `len` uninitialised
        // bytes (plus a NUL) and returns a new reference, or NULL with an
        // exception set, which `from_owned_ptr_or_err` turns into an error.
        let obj = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(std::ptr::null(), n))?
        };
        // SAFETY: `obj` is a bytes object; its buffer lives as long as
        // `obj`, which `objs` holds until after the closure has run.
        bufs.push((
            SendPtr(unsafe { ffi::PyBytes_AsString(obj.as_ptr()) }.cast::<u8>()),
            len,
        ));
        objs.push(obj);
    }
    py.detach(move || {
        let outs = bufs
            .into_iter()
            .map(|(p, len)| {
                // SAFETY: `p.0` points to `len` writable bytes of its own
                // object that only this closure touches (the objects are
                // not visible to Python yet, and each buffer is distinct);
                // they are initialised (zeroed) before the slice is formed.
                unsafe {
                    std::ptr::write_bytes(p.0, 0, len);
                    std::slice::from_raw_parts_mut(p.0, len)
                }
            })
            .collect();
        f(outs)
    })?;
    objs.into_iter()
        .map(|o| Ok(o.cast_into::<pyo3::types::PyBytes>()?))
        .collect()
}
