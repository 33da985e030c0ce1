# Shell functions shared by bench/run and bench/jmh/run (sourced, not run).

# fetch_jars POM OUTPUT_DIR [MAVEN_ARGS...]: copies the runtime dependencies POM names into OUTPUT_DIR
# with Maven, once (a .complete marker records a finished copy).
fetch_jars() {
  local pom="$1" out="$2"
  shift 2
  if [ ! -f "$out/.complete" ]; then
    echo "bench: fetching the jars $pom names with Maven (once)..." >&2
    rm -rf "$out"
    mvn -q -B -Dstyle.color=never -f "$pom" "$@" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out" >&2
    touch "$out/.complete"
  fi
}

# build_varve ROOT BUILD(1|0): builds Varve with Maven unless BUILD is 0, then checks that a build exists.
build_varve() {
  local root="$1" build="$2"
  if [ "$build" = 1 ]; then
    echo "bench: building Varve (mvn -q -B -DskipTests package)..." >&2
    if ! (cd "$root" && mvn -q -B -Dstyle.color=never -DskipTests package >&2); then
      echo "bench: building Varve failed; fix the build, or pass --no-build to measure the existing build." >&2
      return 1
    fi
  fi
  if ! ls "$root/varve-cli/target/lib/"*.jar >/dev/null 2>&1; then
    echo "bench: no Varve build in varve-cli/target; run without --no-build." >&2
    return 1
  fi
}

# compile_java SOURCE_DIR CLASSES_DIR CLASSPATH [PROCESSOR_PATH]: javac for Java 17, again only when a
# source is newer than the last compilation.
compile_java() {
  local src="$1" classes="$2" classpath="$3" processors="${4:-}"
  if [ -f "$classes/.built" ] && [ -z "$(find "$src" -newer "$classes/.built" -print -quit)" ]; then
    return 0
  fi
  rm -rf "$classes"
  mkdir -p "$classes"
  local args=(--release 17 -Xlint:all,-serial,-processing -d "$classes" -cp "$classpath")
  if [ -n "$processors" ]; then
    args+=(-processorpath "$processors")
  fi
  # shellcheck disable=SC2046
  javac "${args[@]}" $(find "$src" -name '*.java')
  touch "$classes/.built"
}
