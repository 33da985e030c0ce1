package io.varve.registry;

import io.varve.registry.compat.CompatibilityChecker;
import io.varve.registry.compat.CompatibilityLevel;
import io.varve.registry.format.Formats;
import io.varve.registry.format.ParsedSchema;
import io.varve.registry.format.ResolvedReference;
import io.varve.registry.format.SchemaReference;
import io.varve.registry.state.Mode;
import io.varve.registry.state.RegistryRecords;
import io.varve.registry.state.RegistryState;
import io.varve.registry.state.StoredSchema;
import io.varve.registry.state.SubjectVersion;
import io.varve.registry.store.SchemaLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's operations, as Confluent Schema Registry defines them. Every change is checked in full, then
 * written to the {@link SchemaLog} and applied to the state only by reading the log back, so the state is always a
 * replay of the log and a refused change leaves nothing behind. Writes are serialised; reads do not lock.
 */
public final class SchemaRegistry {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistry.class);
    private static final int MAX_REFERENCE_DEPTH = 32;

    private final SchemaLog schemaLog;
    private final Formats formats = new Formats();
    private final RegistryState state = new RegistryState();
    private final Map<Integer, ParsedSchema> parsedById = new ConcurrentHashMap<>();
    private volatile long nextOffset;

    public SchemaRegistry(SchemaLog schemaLog) {
        this.schemaLog = schemaLog;
    }

    /** Replays the log from where this registry stopped; at start-up the whole log. */
    public synchronized void catchUp() {
        nextOffset = schemaLog.readFrom(nextOffset, state::apply);
    }

    /**
     * Claims the log's writer role (see {@link SchemaLog#claimWriter}) and replays up to its end; the broker calls it
     * as soon as this node leads the log, so that other nodes learn where to forward writes.
     */
    public synchronized void claimWriter() {
        schemaLog.claimWriter();
        catchUp();
    }

    /** The log offset this registry has replayed up to (exclusive): a write's answer carries it. */
    public long appliedOffset() {
        return nextOffset;
    }

    /**
     * Replays until {@code offset} is applied or {@code timeoutMs} has passed (a node answering a write it forwarded
     * waits for the write to reach its own copy: read-your-writes); returns whether it was reached.
     */
    public boolean awaitApplied(long offset, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long pauseMs = 2;
        while (nextOffset < offset) {
            catchUp();
            if (nextOffset >= offset) {
                break;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                // The local copy advances with the follower's fetches: no event to wait on, so poll briefly.
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            pauseMs = Math.min(50, pauseMs * 2);
        }
        return true;
    }

    public RegistryState state() {
        return state;
    }

    public List<String> schemaTypes() {
        return formats.types();
    }

    // ---- writes ----

    /** Registers {@code request} under {@code subject} and returns its id (the existing one if already there). */
    public synchronized int register(String subject, RegisterRequest request, boolean normalize) {
        requireSubjectName(subject);
        prepareWrite();
        Mode mode = mode(subject);
        if (mode == Mode.READONLY) {
            throw RegistryException.operationNotPermitted("Subject " + subject + " is in read-only mode");
        }
        if (request.id() != null && mode != Mode.IMPORT) {
            throw RegistryException.operationNotPermitted(
                    "Subject " + subject + " is not in import mode: a schema id may be given only in IMPORT mode");
        }
        String type = Formats.normalizeType(request.schemaType());
        ParsedSchema parsed = parse(type, request.schema(), request.references());
        String text = normalize ? parsed.normalized() : parsed.canonical();
        String contentKey = StoredSchema.contentKey(type, text, request.references());
        List<SubjectVersion> live = state.versions(subject, false);
        for (SubjectVersion v : live) {
            StoredSchema s = state.schema(v.id()).orElseThrow();
            if (s.contentKey().equals(contentKey)
                    && (request.id() == null || request.id() == s.id())
                    && (request.version() == null || request.version() == v.version())) {
                return s.id();
            }
        }
        if (mode != Mode.IMPORT) {
            List<String> problems = incompatibilities(subject, parsed, live, level(subject));
            if (!problems.isEmpty()) {
                throw RegistryException.incompatible("Schema being registered is incompatible with an earlier schema"
                        + " for subject \"" + subject + "\", details: " + problems);
            }
        }
        int id = chooseId(request, contentKey);
        int version = chooseVersion(subject, request);
        schemaLog.append(List.of(RegistryRecords.schema(
                new SubjectVersion(subject, version, id, false),
                new StoredSchema(id, type, text, request.references()))));
        catchUp();
        log.info("Registered schema id {} as version {} of subject {}", id, version, subject);
        return id;
    }

    /** Claims the writer role, then replays: every check of a write runs on the whole committed log. */
    private void prepareWrite() {
        schemaLog.claimWriter();
        catchUp();
    }

    private int chooseId(RegisterRequest request, String contentKey) {
        Optional<Integer> existing = state.idOf(contentKey);
        if (request.id() == null) {
            return existing.orElse(state.maxId() + 1);
        }
        int id = request.id();
        if (id <= 0) {
            throw RegistryException.invalidSchema("Invalid schema id " + id);
        }
        Optional<StoredSchema> holder = state.schema(id);
        if (holder.isPresent() && !holder.get().contentKey().equals(contentKey)) {
            throw RegistryException.idTaken("Overwrite new schema with id " + id + " is not permitted.");
        }
        return id;
    }

    private int chooseVersion(String subject, RegisterRequest request) {
        List<SubjectVersion> all = state.versions(subject);
        int next = all.isEmpty() ? 1 : all.get(all.size() - 1).version() + 1;
        if (request.version() == null) {
            return next;
        }
        if (request.version() < 1 || state.version(subject, request.version()).isPresent()) {
            throw RegistryException.invalidVersion(String.valueOf(request.version()));
        }
        return request.version();
    }

    /** Soft or permanent delete of one version; returns the version number. */
    public synchronized int deleteVersion(String subject, String versionText, boolean permanent) {
        prepareWrite();
        requireWritable(subject);
        SubjectVersion v = version(subject, versionText, true);
        StoredSchema schema = state.schema(v.id()).orElseThrow();
        if (!permanent) {
            if (v.deleted()) {
                throw RegistryException.versionSoftDeleted(subject, v.version());
            }
            requireNotReferenced(subject, v.version());
            schemaLog.append(
                    List.of(RegistryRecords.schema(new SubjectVersion(subject, v.version(), v.id(), true), schema)));
        } else {
            if (!v.deleted()) {
                throw RegistryException.versionNotSoftDeleted(subject, v.version());
            }
            requireNotReferenced(subject, v.version());
            schemaLog.append(List.of(
                    RegistryRecords.maxId(state.maxId()), RegistryRecords.schemaTombstone(subject, v.version())));
        }
        catchUp();
        log.info("Deleted version {} of subject {}{}", v.version(), subject, permanent ? " permanently" : "");
        return v.version();
    }

    /** Soft or permanent delete of a subject's versions; returns their numbers. */
    public synchronized List<Integer> deleteSubject(String subject, boolean permanent) {
        prepareWrite();
        requireWritable(subject);
        List<SubjectVersion> all = state.versions(subject);
        if (all.isEmpty()) {
            throw RegistryException.subjectNotFound(subject);
        }
        List<SchemaLog.Entry> entries = new ArrayList<>();
        List<Integer> deleted = new ArrayList<>();
        if (!permanent) {
            List<SubjectVersion> live = state.versions(subject, false);
            if (live.isEmpty()) {
                throw RegistryException.subjectSoftDeleted(subject);
            }
            for (SubjectVersion v : live) {
                requireNotReferenced(subject, v.version());
                entries.add(RegistryRecords.schema(
                        new SubjectVersion(subject, v.version(), v.id(), true),
                        state.schema(v.id()).orElseThrow()));
                deleted.add(v.version());
            }
        } else {
            if (!state.versions(subject, false).isEmpty()) {
                throw RegistryException.subjectNotSoftDeleted(subject);
            }
            entries.add(RegistryRecords.maxId(state.maxId()));
            for (SubjectVersion v : all) {
                requireNotReferenced(subject, v.version());
                entries.add(RegistryRecords.schemaTombstone(subject, v.version()));
                deleted.add(v.version());
            }
            entries.add(RegistryRecords.config(subject, null));
            entries.add(RegistryRecords.mode(subject, null));
        }
        schemaLog.append(entries);
        catchUp();
        log.info("Deleted subject {}{} (versions {})", subject, permanent ? " permanently" : "", deleted);
        return deleted;
    }

    /** Sets the compatibility level of {@code subject} (or the global one for {@link RegistryState#GLOBAL}). */
    public synchronized CompatibilityLevel setConfig(String subject, String level) {
        CompatibilityLevel parsed = CompatibilityLevel.parse(level);
        prepareWrite();
        requireWritable(subject);
        schemaLog.append(List.of(RegistryRecords.config(subject, parsed)));
        catchUp();
        log.info("Compatibility of {} set to {}", describe(subject), parsed);
        return parsed;
    }

    /** Removes a subject's level (back to the global one) or resets the global one; returns the level it had. */
    public synchronized CompatibilityLevel deleteConfig(String subject) {
        prepareWrite();
        requireWritable(subject);
        CompatibilityLevel previous = subject.isEmpty()
                ? state.config(subject).orElse(CompatibilityLevel.DEFAULT)
                : state.config(subject).orElseThrow(() -> RegistryException.subjectConfigNotFound(subject));
        schemaLog.append(List.of(RegistryRecords.config(subject, null)));
        catchUp();
        return previous;
    }

    /** Sets the mode of {@code subject} or the global one; IMPORT needs no subjects there unless {@code force}. */
    public synchronized Mode setMode(String subject, String modeName, boolean force) {
        Mode mode = Mode.parse(modeName);
        prepareWrite();
        if (mode == Mode.IMPORT && !force) {
            boolean hasSchemas = subject.isEmpty()
                    ? state.subjects().stream()
                            .anyMatch(s -> !state.versions(s, false).isEmpty())
                    : !state.versions(subject, false).isEmpty();
            if (hasSchemas) {
                throw RegistryException.operationNotPermitted("Cannot import since found existing subjects");
            }
        }
        schemaLog.append(List.of(RegistryRecords.mode(subject, mode)));
        catchUp();
        log.info("Mode of {} set to {}", describe(subject), mode);
        return mode;
    }

    public synchronized Mode deleteMode(String subject) {
        prepareWrite();
        Mode previous = state.mode(subject).orElseThrow(() -> RegistryException.subjectModeNotFound(subject));
        schemaLog.append(List.of(RegistryRecords.mode(subject, null)));
        catchUp();
        return previous;
    }

    // ---- reads ----

    /** The effective level: the subject's, else the global one, else BACKWARD. */
    public CompatibilityLevel level(String subject) {
        return state.config(subject)
                .or(() -> state.config(RegistryState.GLOBAL))
                .orElse(CompatibilityLevel.DEFAULT);
    }

    /** The level configured on {@code subject}; with {@code defaultToGlobal} falls back to the global one. */
    public CompatibilityLevel config(String subject, boolean defaultToGlobal) {
        if (subject.isEmpty()) {
            return level(subject);
        }
        Optional<CompatibilityLevel> own = state.config(subject);
        if (own.isPresent()) {
            return own.get();
        }
        if (defaultToGlobal) {
            return level(RegistryState.GLOBAL);
        }
        throw RegistryException.subjectConfigNotFound(subject);
    }

    public Mode mode(String subject) {
        return state.mode(subject).or(() -> state.mode(RegistryState.GLOBAL)).orElse(Mode.READWRITE);
    }

    public Mode configuredMode(String subject, boolean defaultToGlobal) {
        if (subject.isEmpty() || defaultToGlobal) {
            return mode(subject);
        }
        return state.mode(subject).orElseThrow(() -> RegistryException.subjectModeNotFound(subject));
    }

    public List<String> subjects(boolean deleted, String prefix) {
        List<String> out = new ArrayList<>();
        for (String s : state.subjects()) {
            if ((prefix == null || s.startsWith(prefix))
                    && !state.versions(s, deleted).isEmpty()) {
                out.add(s);
            }
        }
        out.sort(null);
        return out;
    }

    public List<Integer> versions(String subject, boolean deleted) {
        List<SubjectVersion> v = state.versions(subject, deleted);
        if (v.isEmpty()) {
            throw RegistryException.subjectNotFound(subject);
        }
        return v.stream().map(SubjectVersion::version).toList();
    }

    /** A version by number, {@code latest} or -1; soft-deleted ones only with {@code deleted}. */
    public SubjectVersion version(String subject, String versionText, boolean deleted) {
        int number = parseVersion(versionText);
        List<SubjectVersion> all = state.versions(subject, deleted);
        if (all.isEmpty()) {
            throw RegistryException.subjectNotFound(subject);
        }
        if (number == -1) {
            return all.get(all.size() - 1);
        }
        return all.stream()
                .filter(v -> v.version() == number)
                .findFirst()
                .orElseThrow(() -> RegistryException.versionNotFound(subject, number));
    }

    public StoredSchema schema(int id) {
        return state.schema(id).orElseThrow(() -> RegistryException.schemaNotFound("Schema " + id + " not found"));
    }

    /** The parsed schema of {@code id}, cached: what deep validation decodes with. */
    public ParsedSchema parsed(int id) {
        ParsedSchema p = parsedById.get(id);
        if (p == null) {
            StoredSchema s = schema(id);
            p = parse(s.schemaType(), s.schema(), s.references());
            parsedById.put(id, p);
        }
        return p;
    }

    /** The live version of {@code subject} whose schema is {@code request}'s (POST /subjects/{subject}). */
    public SubjectVersion lookUp(String subject, RegisterRequest request, boolean normalize, boolean deleted) {
        List<SubjectVersion> versions = state.versions(subject, deleted);
        if (versions.isEmpty()) {
            throw RegistryException.subjectNotFound(subject);
        }
        String type = Formats.normalizeType(request.schemaType());
        ParsedSchema parsed = parse(type, request.schema(), request.references());
        String canonical = StoredSchema.contentKey(type, parsed.canonical(), request.references());
        String normalized = StoredSchema.contentKey(type, parsed.normalized(), request.references());
        for (int i = versions.size() - 1; i >= 0; i--) {
            SubjectVersion v = versions.get(i);
            StoredSchema s = state.schema(v.id()).orElseThrow();
            if (s.contentKey().equals(canonical)
                    || normalize
                            && (s.contentKey().equals(normalized)
                                    || normalizedKey(s).equals(normalized))) {
                return v;
            }
        }
        throw RegistryException.schemaNotFound("Schema not found");
    }

    private String normalizedKey(StoredSchema s) {
        return StoredSchema.contentKey(s.schemaType(), parsed(s.id()).normalized(), s.references());
    }

    /** Subjects with a version of schema {@code id}. */
    public List<SubjectVersion> versionsOf(int id, boolean deleted) {
        schema(id);
        List<SubjectVersion> out = new ArrayList<>();
        for (String s : subjects(deleted, null)) {
            for (SubjectVersion v : state.versions(s, deleted)) {
                if (v.id() == id) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /** Ids of the live schemas that reference {@code subject} at {@code version}. */
    public List<Integer> referencedBy(String subject, int version) {
        List<Integer> ids = new ArrayList<>();
        for (String s : state.subjects()) {
            for (SubjectVersion v : state.versions(s, false)) {
                StoredSchema schema = state.schema(v.id()).orElseThrow();
                for (SchemaReference r : schema.references()) {
                    if (r.subject().equals(subject) && r.version() == version && !ids.contains(v.id())) {
                        ids.add(v.id());
                    }
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * Why {@code request} may not be registered in {@code subject}: against one version ({@code versionText}) or,
     * when null, against those the subject's level names. Empty when compatible.
     */
    public List<String> testCompatibility(String subject, String versionText, RegisterRequest request) {
        ParsedSchema parsed =
                parse(Formats.normalizeType(request.schemaType()), request.schema(), request.references());
        CompatibilityLevel level = level(subject);
        if (versionText == null) {
            return incompatibilities(subject, parsed, state.versions(subject, false), level);
        }
        SubjectVersion v = version(subject, versionText, false);
        return incompatibilities(subject, parsed, List.of(v), level);
    }

    private List<String> incompatibilities(
            String subject, ParsedSchema candidate, List<SubjectVersion> live, CompatibilityLevel level) {
        List<CompatibilityChecker.Previous> previous = new ArrayList<>();
        for (SubjectVersion v : CompatibilityChecker.versionsToCheck(live, level)) {
            previous.add(new CompatibilityChecker.Previous(v.version(), parsed(v.id())));
        }
        return CompatibilityChecker.check(candidate, previous, level);
    }

    // ---- helpers ----

    private ParsedSchema parse(String type, String text, List<SchemaReference> references) {
        return formats.parse(type, text, resolve(references, 0));
    }

    private List<ResolvedReference> resolve(List<SchemaReference> references, int depth) {
        if (depth > MAX_REFERENCE_DEPTH) {
            throw RegistryException.invalidSchema("Invalid schema: references nest deeper than " + MAX_REFERENCE_DEPTH);
        }
        List<ResolvedReference> out = new ArrayList<>();
        for (SchemaReference r : references) {
            if (r.name() == null || r.subject() == null) {
                throw RegistryException.invalidSchema("Invalid schema: a reference needs a name and a subject");
            }
            Optional<SubjectVersion> v = r.version() == -1
                    ? state.versions(r.subject(), false).stream().reduce((a, b) -> b)
                    : state.version(r.subject(), r.version());
            if (v.isEmpty()) {
                throw RegistryException.invalidSchema("Invalid schema: the reference " + r.name() + " names subject "
                        + r.subject() + " version " + r.version() + ", which does not exist");
            }
            StoredSchema s = state.schema(v.get().id()).orElseThrow();
            out.add(new ResolvedReference(r.name(), s.schemaType(), s.schema(), resolve(s.references(), depth + 1)));
        }
        return out;
    }

    private void requireNotReferenced(String subject, int version) {
        List<Integer> ids = referencedBy(subject, version);
        if (!ids.isEmpty()) {
            throw RegistryException.referenceExists("One or more references exist to the schema {subject=" + subject
                    + ",version=" + version + "}: schemas " + ids);
        }
    }

    private void requireWritable(String subject) {
        if (mode(subject) == Mode.READONLY) {
            throw RegistryException.operationNotPermitted("Subject " + subject + " is in read-only mode");
        }
    }

    private static void requireSubjectName(String subject) {
        if (subject == null || subject.isEmpty() || subject.chars().anyMatch(Character::isISOControl)) {
            throw RegistryException.invalidSubject(String.valueOf(subject));
        }
    }

    static int parseVersion(String text) {
        if (text == null || text.equals("latest")) {
            return -1;
        }
        try {
            int v = Integer.parseInt(text);
            if (v == -1 || v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // falls through to the refusal
        }
        throw RegistryException.invalidVersion(text);
    }

    private static String describe(String subject) {
        return subject.isEmpty() ? "the registry" : "subject " + subject;
    }
}
