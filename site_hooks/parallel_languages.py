"""Hook: `mkdocs build` builds every other language in a forked process while this one builds the default.

mkdocs-static-i18n builds the languages one after another in one process: its on_post_build calls mkdocs'
`build()` again for each other language. On two cores that leaves one idle for half the build. Here, as soon as
i18n has read the configuration (before the catalogue loads, which both builds then do at once), one process
per other language is forked; it runs the very build i18n would have run later, writing nothing until the outer
build has cleaned the site folder (a pipe says when; if the outer build ends first, the fork gives up), and
hands back what that build left in memory for the outer build's last steps:
i18n's search entries, and whatever a hook returns from its `hand_over(config)` (that hook's
`take_over(config, handed)` gets it in the outer build). i18n's loop then takes each finished language
instead of building it again; a language whose process failed fails the build.

Serial where there is no fork, under `mkdocs serve` (its server threads must not be forked), and with
BESLUITBRON_SITE_SERIAL=1, which tests use to show that both ways write the same bytes.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mkdocs_static_i18n.plugin as i18n_plugin
from mkdocs import utils
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

SERIAL_ENV = "BESLUITBRON_SITE_SERIAL"
log = logging.getLogger("mkdocs.plugins.besluitbron")


@dataclass
class _Fork:
    pid: int
    result: Path
    cleaned: int  # the write end of the pipe that tells it the site folder is clean


@dataclass
class _State:
    command: str = ""
    forks: dict[str, _Fork] = field(default_factory=dict)  # language → its build's process
    build: Callable[..., None] | None = None  # i18n's own `build`, while it is replaced
    cleaned: int | None = None  # in a fork: the read end of the pipe that says the site folder is clean


_STATE = _State()


def on_startup(command: str, dirty: bool) -> None:
    _STATE.command = command


@event_priority(-105)  # after i18n's on_config (-100) read the languages; before pages.py (-110) loads the catalogue
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    plugin = config.plugins.get("i18n")
    if plugin is None or plugin.building or _STATE.forks or not _parallel():
        return config
    others = [lang for lang in plugin.build_languages if lang != plugin.current_language]
    _STATE.build = i18n_plugin.build
    for lang in others:
        _STATE.forks[lang] = _fork(config, plugin, lang, _STATE.build)
    i18n_plugin.build = _take_finished  # i18n's loop calls build(config, dirty=...) once per other language
    return config


@event_priority(100)  # first: the outer build has just cleaned the site folder, no page has been read
def on_files(files: Files, config: MkDocsConfig) -> Files:
    plugin = config.plugins.get("i18n")
    if plugin is not None and not plugin.building:
        for fork in _STATE.forks.values():
            _signal_cleaned(fork)
    return files


@event_priority(-105)  # after i18n's on_post_build (-100) went through every language
def on_post_build(config: MkDocsConfig) -> None:
    plugin = config.plugins.get("i18n")
    if plugin is not None and not plugin.building:
        _restore()


def on_build_error(error: Exception) -> None:
    if _STATE.cleaned is not None and not _outer_build_cleaned():
        # A fork that failed before the outer build cleaned the folder, and the outer build has ended: it failed
        # too, on the same registry or configuration, and has said why; one report of the cause is enough.
        os._exit(1)
    for fork in _STATE.forks.values():
        _reap(fork, kill=True)
    _restore()


# ----------------------------------------------------------------------------- the two sides


def _parallel() -> bool:
    return _STATE.command == "build" and hasattr(os, "fork") and not os.environ.get(SERIAL_ENV)


def _fork(config: MkDocsConfig, plugin: Any, lang: str, build: Callable[..., None]) -> _Fork:
    handle, name = tempfile.mkstemp(prefix=f"besluitbron-{lang}-", suffix=".pickle")
    os.close(handle)
    cleaned_read, cleaned_write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or what is buffered now would be written twice
    pid = os.fork()
    if pid:
        os.close(cleaned_read)
        return _Fork(pid, Path(name), cleaned_write)
    status = 1
    for sibling in _STATE.forks.values():  # the outer build's ends of the pipes to the languages forked before
        if sibling.cleaned >= 0:
            os.close(sibling.cleaned)
    _STATE.forks.clear()  # the languages forked before this one are its siblings, not its to end on an error
    os.close(cleaned_write)  # so the pipe ends when the outer build does
    try:
        # What i18n's on_post_build sets up around the builds of its other languages.
        plugin.building, plugin.current_language = True, lang
        utils.clean_directory = _keep_directory
        _STATE.cleaned = cleaned_read
        logging.getLogger("mkdocs.commands.build").addFilter(_not_the_build_banner)
        build(config, dirty=False)
        handed = {name: hook.hand_over(config) for name, hook in config.plugins.items() if hasattr(hook, "hand_over")}
        Path(name).write_bytes(pickle.dumps({"search": plugin.search_entries, "hooks": handed}))
        status = 0
    except BaseException as exc:  # reported here; the outer build fails on the status
        log.error("besluitbron: the %s build failed: %s", lang, exc)
    finally:
        logging.shutdown()
        os._exit(status)


def _keep_directory(directory: str) -> None:
    """mkdocs' clean_directory, as i18n replaces it for its other languages: the outer build cleans it. A fork
    waits here until it has (mkdocs cleans before it reads a file), and gives up if the outer build ended."""
    if _STATE.cleaned is not None and not _outer_build_cleaned():
        raise PluginError("besluitbron: the outer build ended before it cleaned the site folder")


def _outer_build_cleaned() -> bool:
    """In a fork: wait until the outer build has cleaned the site folder (True) or has ended (False)."""
    assert _STATE.cleaned is not None
    cleaned, _STATE.cleaned = _STATE.cleaned, None
    said = os.read(cleaned, 1)
    os.close(cleaned)
    return bool(said)


def _signal_cleaned(fork: _Fork) -> None:
    if fork.cleaned >= 0:
        os.write(fork.cleaned, b"1")
        os.close(fork.cleaned)
        fork.cleaned = -1


def _not_the_build_banner(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith(("Documentation built in", "Building documentation to directory"))


def _take_finished(config: MkDocsConfig, dirty: bool = False) -> None:
    """In place of i18n's `build()` for the current language: wait for its process and take what it built."""
    plugin: Any = config.plugins["i18n"]
    fork = _STATE.forks.pop(plugin.current_language, None)
    if fork is None:  # a language that was not forked builds here, as i18n would
        assert _STATE.build is not None
        _STATE.build(config, dirty=dirty)
        return
    try:
        if not _reap(fork):
            raise PluginError(f"besluitbron: the {plugin.current_language} build failed (its messages are above)")
        built = pickle.loads(fork.result.read_bytes())
    finally:
        fork.result.unlink(missing_ok=True)
    plugin.search_entries.extend(built["search"])
    for name, handed in built["hooks"].items():
        take_over = getattr(config.plugins[name], "take_over", None)
        if take_over is not None:
            take_over(config, handed)


def _reap(fork: _Fork, *, kill: bool = False) -> bool:
    """Wait for a fork (ended first if `kill`); True if it built its language."""
    try:
        if kill:
            os.kill(fork.pid, signal.SIGKILL)
            fork.result.unlink(missing_ok=True)
        _, status = os.waitpid(fork.pid, 0)
    except (ChildProcessError, ProcessLookupError):
        return False
    return os.waitstatus_to_exitcode(status) == 0


def _restore() -> None:
    for fork in _STATE.forks.values():
        if fork.cleaned >= 0:  # a fork the build ended before it cleaned: its pipe ends, and so does the fork
            os.close(fork.cleaned)
            fork.cleaned = -1
    if _STATE.build is not None:
        i18n_plugin.build = _STATE.build
    _STATE.build = None
    _STATE.forks.clear()
