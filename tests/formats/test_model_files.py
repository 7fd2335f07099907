"""model_files: what a model names is read from inside its directory only,
from regular files only, within their size; each refusal one line."""

import os
import time
from pathlib import Path

import pytest

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.model_files import ModelDirectory


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "model"
    (directory / "sub").mkdir(parents=True)
    (directory / "data.bin").write_bytes(bytes(range(16)))
    (tmp_path / "secret.bin").write_bytes(b"outside the model")
    return directory


def refused(directory: Path, name: str, *fragments: str, **placement) -> str:
    with pytest.raises(FrontendError) as info:
        ModelDirectory(directory).read(name, **placement)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_reads_a_file_and_a_slice_of_it(model_dir: Path):
    files = ModelDirectory(model_dir)
    assert files.read("data.bin") == bytes(range(16))
    assert files.read("data.bin", 4, 8) == bytes(range(4, 12))
    assert files.read("data.bin", 16, 0) == b""


def test_a_symlink_staying_inside_is_followed(model_dir: Path):
    os.symlink("../data.bin", model_dir / "sub" / "link.bin")
    assert ModelDirectory(model_dir).read("sub/link.bin", 0, 2) == b"\0\1"
    assert ModelDirectory(model_dir).read("sub/../data.bin", 15) == b"\x0f"


@pytest.mark.parametrize(
    "target", ["/proc/self/environ", "../secret.bin", "/etc/passwd"]
)
def test_a_symlink_leaving_the_directory_is_refused(model_dir: Path, target):
    os.symlink(target, model_dir / "weights.bin")
    refused(model_dir, "weights.bin", "weights.bin", "outside the model's directory")


def test_a_symlinked_directory_leaving_it_is_refused(model_dir: Path):
    os.symlink(model_dir.parent, model_dir / "up")
    refused(model_dir, "up/secret.bin", "outside the model's directory")


@pytest.mark.parametrize("name", ["../secret.bin", "sub/../../secret.bin"])
def test_dot_dot_leaving_the_directory_is_refused(model_dir: Path, name):
    refused(model_dir, name, "outside the model's directory")


def test_an_absolute_name_is_refused(model_dir: Path):
    refused(model_dir, str(model_dir / "data.bin"), "an absolute path")


def test_a_fifo_is_refused_without_waiting_for_a_writer(model_dir: Path):
    os.mkfifo(model_dir / "fifo.bin")
    start = time.monotonic()
    refused(model_dir, "fifo.bin", "fifo.bin", "a FIFO")
    assert time.monotonic() - start < 30  # a blocking open would never return


def test_a_directory_is_refused(model_dir: Path):
    refused(model_dir, "sub", "a directory")


def test_a_device_is_refused():
    refused(Path("/"), "dev/null", "a character device")


@pytest.mark.parametrize(
    "offset, length", [(0, 17), (10, 7), (17, None), (-1, 2), (0, -1), (1 << 62, 1)]
)
def test_reads_past_the_end_are_refused(model_dir: Path, offset, length):
    refused(
        model_dir, "data.bin", "data.bin", "past the end", offset=offset, length=length
    )


def test_a_missing_file_is_one_line_naming_it(model_dir: Path):
    refused(
        model_dir,
        "absent.bin",
        "absent.bin",
        "cannot read the weights",
        what="the weights",
    )


@pytest.mark.parametrize("name", ["a\0b", "a\nb/../../x", "x" * 5000])
def test_hostile_names_give_one_short_line(model_dir: Path, name):
    message = refused(model_dir, name)
    assert message.isprintable() and len(message) < 400, message
