#!/bin/bash
# The CLI ($PROFPACK_REAL_CLI) with --no-symbolize on the commands that name addresses as they
# read: what a program that reads without PROFPACK_READ_SYMBOLIZE sees.
case "$1" in
  info | top | annotate | calls | convert) exec "$PROFPACK_REAL_CLI" "$@" --no-symbolize ;;
  *) exec "$PROFPACK_REAL_CLI" "$@" ;;
esac
