"""The package surface: stubs match the module, docstrings exist."""

import ast
import inspect
from pathlib import Path

import aesflow
from aesflow import _aesflow

# The stubs the installed package ships (what a type checker sees).
STUB = Path(aesflow.__file__).resolve().parent / "_aesflow.pyi"


def test_installed_package_not_the_source_tree():
    """The tests exercise the installed wheel: the source tree keeps the
    package under src/, so no directory can shadow it."""
    assert (Path(aesflow.__file__).parent / "py.typed").exists()
    assert "site-packages" in aesflow.__file__ or "dist-packages" in aesflow.__file__


def stub_names():
    tree = ast.parse(STUB.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    # Private names are stub-only helpers (shared base classes).
    return {n for n in names if not n.startswith("_")} - {"KernelInfo"}


def test_stubs_match_module():
    public = {n for n in dir(_aesflow) if not n.startswith("_")}
    assert stub_names() == public


def test_everything_documented():
    for name in aesflow.__all__:
        obj = getattr(aesflow, name)
        assert inspect.getdoc(obj), name
        if inspect.isclass(obj):
            for m, v in vars(obj).items():
                if not m.startswith("_") and callable(v):
                    assert inspect.getdoc(getattr(obj, m)), f"{name}.{m}"
    import aesflow.dask as ad

    for name in ad.__all__:
        if callable(getattr(ad, name)):
            assert inspect.getdoc(getattr(ad, name)), name


def test_keys_not_exposed():
    a = aesflow.AESGCM(b"k" * 32)
    assert "kkkk" not in repr(a)
    assert not [n for n in dir(a) if "key" in n.lower() and n != "generate_key"]
