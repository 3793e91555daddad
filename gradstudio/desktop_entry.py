"""``gradstudio --install-desktop-entry``: the studio in the desktop menu, opening
``.gstudio`` files, for the user who asks (freedesktop.org: a ``.desktop`` entry, an icon in
the hicolor theme and a MIME type for the file format, under ``$XDG_DATA_HOME``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from gradstudio.locations import ICONS_DIR

APP_ID = "gradstudio"
MIME_TYPE = "application/x-gradstudio"

_MIME_XML = f"""<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="{MIME_TYPE}">
    <comment>GradStudio document</comment>
    <glob pattern="*.gstudio"/>
    <icon name="{APP_ID}"/>
  </mime-type>
</mime-info>
"""


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def _quote(arg: str) -> str:
    """One argument of an ``Exec`` key, quoted as the Desktop Entry spec asks."""
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`"):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{escaped}"'.replace("%", "%%")


def launch_command() -> list[str]:
    """How the menu starts the studio: the installed ``gradstudio-gui`` beside this
    Python, else this Python running the package."""
    script = Path(sys.executable).with_name("gradstudio-gui")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("gradstudio-gui")
    return [found] if found else [sys.executable, "-m", APP_ID]


def desktop_entry(command: list[str]) -> str:
    exec_line = " ".join(_quote(a) for a in command) + " %f"
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=GradStudio\n"
        "GenericName=Autograd studio\n"
        "Comment=See what PyTorch's autograd does, node by node\n"
        f"Exec={exec_line}\n"
        f"Icon={APP_ID}\n"
        "Terminal=false\n"
        "Categories=Education;Science;Development;\n"
        f"MimeType={MIME_TYPE};\n"
        "StartupWMClass=GradStudio\n"
    )


def install_desktop_entry(out: TextIO, err: TextIO) -> int:
    """Write the entry, icon and MIME type for this user; 0, or 2 with one line why not."""
    if not sys.platform.startswith(("linux", "freebsd")):
        print(
            "gradstudio: error: desktop entries are a freedesktop.org (Linux) convention; "
            "on this system, pin the 'gradstudio-gui' command instead",
            file=err,
        )
        return 2
    home = data_home()
    targets = {
        home / "applications" / f"{APP_ID}.desktop": desktop_entry(launch_command()),
        home / "mime" / "packages" / f"{APP_ID}.xml": _MIME_XML,
    }
    try:
        for path, text in targets.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        icon = home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
        icon.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ICONS_DIR / f"{APP_ID}.svg", icon)
    except OSError as exc:
        print(f"gradstudio: error: {exc.filename or ''}: {exc.strerror or exc}", file=err)
        return 2
    for tool, folder in (
        ("update-mime-database", "mime"),
        ("update-desktop-database", "applications"),
    ):
        if shutil.which(tool):
            subprocess.run([tool, str(home / folder)], capture_output=True, check=False)
    print(
        f"installed {home / 'applications' / f'{APP_ID}.desktop'} (icon and .gstudio type too)",
        file=out,
    )
    return 0
