#!/usr/bin/env bash
# README command (1) after install: `ork demo` (builds the CLI first).
exec bash "$(dirname "$0")/ork.sh" demo "$@"
