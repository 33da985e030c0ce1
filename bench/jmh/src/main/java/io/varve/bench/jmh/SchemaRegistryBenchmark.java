package io.varve.bench.jmh;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.varve.broker.api.ProduceRecordCheck;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.registry.SchemaValidation;
import io.varve.registry.RegisterRequest;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.format.Formats;
import io.varve.registry.rest.RestServer;
import io.varve.registry.state.StoredSchema;
import io.varve.registry.store.InMemorySchemaLog;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The schema registry: lookups by id (the state's map, the cached parsed schema, a parse as on a cache miss, and
 * GET /schemas/ids/{id} over loopback HTTP, what a serializer does on its own cache miss), and broker-side validation
 * of one produce batch of Avro records, shallow (header and subject) and deep (each value decoded), beside iterating
 * the same batch without a check. Compare the validation figures with AppendBenchmark for the share of an append.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SchemaRegistryBenchmark {
    private static final String USER = "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"demo\",\"fields\":["
            + "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\"},"
            + "{\"name\":\"email\",\"type\":\"string\"}]}";

    @Param({"100"})
    int recordsPerBatch;

    private SchemaRegistry registry;
    private RestServer server;
    private HttpClient http;
    private HttpRequest byId;
    private int id;
    private StoredSchema stored;
    private final Formats formats = new Formats();
    private ProduceRecordCheck validation;
    private TopicInfo shallowTopic;
    private TopicInfo deepTopic;
    private ByteBuffer batch;

    @Setup
    public void setUp() throws Exception {
        registry = new SchemaRegistry(new InMemorySchemaLog());
        id = registry.register("users-value", RegisterRequest.of(null, USER), false);
        stored = registry.schema(id);
        server = RestServer.start("http://127.0.0.1:0", registry);
        http = HttpClient.newHttpClient();
        byId = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/schemas/ids/" + id)).build();
        validation = new SchemaValidation(registry);
        shallowTopic = new TopicInfo("users", Uuid.randomUuid(), Map.of(),
                Map.of("confluent.value.schema.validation", "true"));
        deepTopic = new TopicInfo("users", Uuid.randomUuid(), Map.of(),
                Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true"));
        Schema schema = new Schema.Parser().parse(USER);
        SimpleRecord[] records = new SimpleRecord[recordsPerBatch];
        for (int i = 0; i < records.length; i++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("name", "user-" + i);
            r.put("age", i % 90);
            r.put("email", "user-" + i + "@example.com");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(id).array());
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema).write(r, encoder);
            encoder.flush();
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, out.toByteArray());
        }
        batch = MemoryRecords.withRecords(Compression.NONE, records).buffer();
        registry.parsed(id);
    }

    @TearDown
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public Object lookupStoredById() {
        return registry.schema(id);
    }

    @Benchmark
    public Object lookupParsedByIdCached() {
        return registry.parsed(id);
    }

    @Benchmark
    public Object lookupParsedByIdUncached() {
        return formats.parse(stored.schemaType(), stored.schema(), List.of());
    }

    @Benchmark
    public String lookupOverHttp() throws Exception {
        return http.send(byId, HttpResponse.BodyHandlers.ofString()).body();
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public int iterateBatchWithoutCheck() {
        int[] n = {0};
        io.varve.broker.protocol.ProducedRecords.forEach(batch, (i, k, v) -> {
            n[0] += v.remaining();
            return true;
        });
        return n[0];
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public Object validateBatchShallow() {
        return validation.check(shallowTopic, batch);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public Object validateBatchDeep() {
        return validation.check(deepTopic, batch);
    }
}
