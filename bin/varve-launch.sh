# Sourced by bin/varve and bench/run: how Varve is built, found and launched.
#   varve_classpath ROOT           the node's class path (jars only: class-data sharing ignores directories)
#   varve_java                     the java bin/varve runs the node on (VARVE_JDK, below)
#   varve_java_feature JAVA        a java's feature version: 17, 21, 25 ...
#   varve_ensure_cds ROOT [JAVA]   (re)writes JAVA's class-data archive (JDK 25 on: its AOT cache) when a jar is newer
#   varve_cds_opts ROOT [JAVA]     the JVM options that map it, or nothing when there is none
#   varve_jvm_opts ROOT [JAVA]     what bin/varve adds to every node: those, and what that JDK needs besides
# JAVA defaults to the java on PATH in the last two, so that a script that runs plain `java` gets options it accepts.

# The switch: which JDK bin/varve runs on unless VARVE_JDK says otherwise.
#   path    the java on PATH, as always (Java 17 on our machines);
#   newest  JAVA_HOME's java when JAVA_HOME is set, else the newest JDK (17 or later) on PATH or under /usr/lib/jvm.
# It becomes 'newest' only when `bench/run --broker-java` shows a newer JDK materially better (bench/RESULTS.md).
VARVE_JDK_DEFAULT=path

varve_classpath() {
  local target="$1/varve-cli/target" jar
  jar="$(ls "$target"/varve-cli-*.jar 2>/dev/null | grep -v -e '-sources' -e '-tests' | head -1)"
  echo "$jar:$target/lib/*"
}

# varve_java_version JAVA: the runtime version, e.g. 17.0.15+6-Debian-1deb12u1 or 25.0.3+9-LTS; read from the JDK's
# release file (no JVM start), else asked of the JVM.
varve_java_version() {
  local java home version=""
  java="$(readlink -f "$(command -v "$1")")"
  home="$(dirname "$(dirname "$java")")"
  if [ -f "$home/release" ]; then
    version="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$home/release")"
  fi
  if [ -z "$version" ]; then
    version="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')"
  fi
  echo "$version"
}

varve_java_feature() {
  local version
  version="$(varve_java_version "$1")"
  version="${version#1.}"
  version="${version%%[.+-]*}"
  case "$version" in
    '' | *[!0-9]*) echo 0 ;;
    *) echo "$version" ;;
  esac
}

varve_java() {
  local choice="${VARVE_JDK:-$VARVE_JDK_DEFAULT}" best="" best_feature=0 candidate feature
  case "$choice" in
    path)
      if ! command -v java; then
        echo "varve: no java on PATH; install a JDK 17 or later" >&2
        return 1
      fi
      ;;
    newest)
      if [ -n "${JAVA_HOME:-}" ]; then
        if [ -x "$JAVA_HOME/bin/java" ]; then
          echo "$JAVA_HOME/bin/java"
          return 0
        fi
        echo "varve: JAVA_HOME=$JAVA_HOME has no bin/java" >&2
        return 1
      fi
      for candidate in "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        feature="$(varve_java_feature "$candidate")"
        if [ "$feature" -gt "$best_feature" ]; then
          best="$candidate"
          best_feature="$feature"
        fi
      done
      if [ "$best_feature" -lt 17 ]; then
        echo "varve: no JDK 17 or later on PATH or under /usr/lib/jvm; set JAVA_HOME to one" >&2
        return 1
      fi
      echo "$best"
      ;;
    *)
      echo "varve: VARVE_JDK must be 'path' or 'newest', not '$choice'" >&2
      return 1
      ;;
  esac
}

# One archive per JDK build: an archive is only valid for the JVM that wrote it. JDK 25 replaces the dynamic CDS
# archive with the AOT cache (JEP 483/514), which also keeps classes linked and the training run's method profiles.
varve_cds_archive() {
  local java="${2:-java}" version
  version="$(varve_java_version "$java" | tr -c 'A-Za-z0-9.\n-' '_')"
  if [ "$(varve_java_feature "$java")" -ge 25 ]; then
    echo "$1/varve-cli/target/varve-java-$version.aot"
  else
    echo "$1/varve-cli/target/varve-java-$version.jsa"
  fi
}

# A cold JVM spends most of a node's start-up loading, parsing and verifying classes. The archive is written by
# one short training run (varve cds-training: start, produce, consume, restart) under -XX:ArchiveClassesAtExit
# (JDK 25 on: -XX:AOTCacheOutput); it is only an optimisation, so a failed training leaves no archive and the node
# starts without one.
varve_ensure_cds() {
  local root="$1" java="${2:-java}" archive record
  archive="$(varve_cds_archive "$root" "$java")"
  if [ -f "$archive" ] && [ -z "$(find "$root/varve-cli/target" -maxdepth 2 -name '*.jar' -newer "$archive" -print -quit)" ]; then
    return 0
  fi
  rm -f "$archive"
  if [ "$(varve_java_feature "$java")" -ge 25 ]; then
    record=(-XX:AOTCacheOutput="$archive" -Xlog:aot=off -Xlog:cds=off)
  else
    record=(-XX:ArchiveClassesAtExit="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off)
  fi
  echo "varve: recording the class-data archive for $(varve_java_version "$java") (once per build)..." >&2
  if ! "$java" "${record[@]}" -Xmx512m -cp "$(varve_classpath "$root")" io.varve.cli.Varve cds-training \
      > "$root/varve-cli/target/cds-training.log" 2>&1; then
    echo "varve: the training run failed (see varve-cli/target/cds-training.log); starting without the archive" >&2
    rm -f "$archive"
  fi
}

varve_cds_opts() {
  local java="${2:-java}" archive
  archive="$(varve_cds_archive "$1" "$java")"
  if [ -f "$archive" ]; then
    if [ "$(varve_java_feature "$java")" -ge 25 ]; then
      echo "-XX:AOTCache=$archive -Xlog:aot=off -Xlog:cds=off"
    else
      echo "-XX:SharedArchiveFile=$archive -Xlog:cds=off -Xlog:cds+dynamic=off"
    fi
  fi
}

# JDK 24 on warns at start-up when Netty loads its native epoll transport unless native access is granted.
varve_jvm_opts() {
  local java="${2:-java}"
  varve_cds_opts "$1" "$java" | tr -d '\n'
  if [ "$(varve_java_feature "$java")" -ge 24 ]; then
    printf ' %s' --enable-native-access=ALL-UNNAMED
  fi
  echo
}
