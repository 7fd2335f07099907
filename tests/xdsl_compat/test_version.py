"""The version guard: graph-opt's xDSL internals are written against one release."""

from __future__ import annotations

import warnings

import pytest
import xdsl

from graph_opt.xdsl_compat import (
    XDSL_VERSION_SUPPORTED,
    XDSLVersionWarning,
    check_xdsl_version,
    xdsl_version_supported,
)


def test_the_installed_xdsl_is_the_supported_release():
    assert xdsl_version_supported(), (
        f"xDSL {xdsl.__version__} installed, graph_opt/xdsl_compat targets "
        f"{XDSL_VERSION_SUPPORTED}: recheck tests/xdsl_compat, then raise the version"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_xdsl_version()


@pytest.mark.parametrize("version", ["0.75.0", "0.7", "1.74.0", "0.740"])
def test_another_release_warns_in_one_line(version):
    with pytest.warns(XDSLVersionWarning, match=f"found {version}:") as caught:
        check_xdsl_version(version)
    assert "\n" not in str(caught[0].message)


@pytest.mark.parametrize("version", ["0.74", "0.74.0", "0.74.3"])
def test_patch_releases_are_supported(version):
    assert xdsl_version_supported(version)
