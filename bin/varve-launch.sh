# Sourced by bin/varve and bench/run: how Varve is built, found and launched.
#   varve_classpath ROOT      the node's class path (jars only: class-data sharing ignores directories)
#   varve_ensure_cds ROOT     (re)writes the class-data-sharing archive when a jar is newer than it
#   varve_cds_opts ROOT       the JVM options that map the archive, or nothing when there is none

varve_classpath() {
  local target="$1/varve-cli/target" jar
  jar="$(ls "$target"/varve-cli-*.jar 2>/dev/null | grep -v -e '-sources' -e '-tests' | head -1)"
  echo "$jar:$target/lib/*"
}

varve_cds_archive() {
  echo "$1/varve-cli/target/varve.jsa"
}

# A cold JVM spends most of a node's start-up loading, parsing and verifying classes. The archive is written by
# one short training run (varve cds-training: start, produce, consume, restart) under -XX:ArchiveClassesAtExit;
# it is only an optimisation, so a failed training leaves no archive and the node starts without one.
varve_ensure_cds() {
  local root="$1" archive
  archive="$(varve_cds_archive "$root")"
  if [ -f "$archive" ] && [ -z "$(find "$root/varve-cli/target" -maxdepth 2 -name '*.jar' -newer "$archive" -print -quit)" ]; then
    return 0
  fi
  rm -f "$archive"
  echo "varve: recording the class-data-sharing archive (once per build)..." >&2
  if ! java -XX:ArchiveClassesAtExit="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off -Xmx512m \
      -cp "$(varve_classpath "$root")" io.varve.cli.Varve cds-training \
      > "$root/varve-cli/target/cds-training.log" 2>&1; then
    echo "varve: the training run failed (see varve-cli/target/cds-training.log); starting without the archive" >&2
    rm -f "$archive"
  fi
}

varve_cds_opts() {
  local archive
  archive="$(varve_cds_archive "$1")"
  if [ -f "$archive" ]; then
    echo "-XX:SharedArchiveFile=$archive -Xlog:cds=off -Xlog:cds+dynamic=off"
  fi
}
