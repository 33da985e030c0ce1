package io.varve.tiered;

import io.varve.tiered.fs.FileSystemRemoteStorage;
import io.varve.tiered.s3.S3RemoteStorage;
import io.varve.tiered.spi.RemoteStorage;
import java.lang.reflect.InvocationTargetException;
import java.util.HashMap;
import java.util.Map;

/**
 * Creates the configured {@link RemoteStorage} from broker configuration, Kafka-style:
 * {@value #CLASS_NAME_CONFIG} names the backend ({@code filesystem}, {@code s3}, or the class name of a
 * {@link RemoteStorage} with a public constructor taking {@code Map<String, String>}), and every key starting with
 * {@value #IMPL_PREFIX_CONFIG} (default {@value #DEFAULT_IMPL_PREFIX}) is passed to it with the prefix stripped.
 */
public final class RemoteStorageFactory {
    public static final String CLASS_NAME_CONFIG = "remote.log.storage.manager.class.name";
    public static final String IMPL_PREFIX_CONFIG = "remote.log.storage.manager.impl.prefix";
    public static final String DEFAULT_IMPL_PREFIX = "rsm.config.";
    public static final String FILESYSTEM = "filesystem";
    public static final String S3 = "s3";

    private RemoteStorageFactory() {}

    public static RemoteStorage create(Map<String, ?> brokerConfig) {
        String prefix = stringValue(brokerConfig, IMPL_PREFIX_CONFIG, DEFAULT_IMPL_PREFIX);
        Map<String, String> backendConfig = backendConfig(brokerConfig, prefix);
        String name = stringValue(brokerConfig, CLASS_NAME_CONFIG, FILESYSTEM).trim();
        return switch (name) {
            case FILESYSTEM -> FileSystemRemoteStorage.fromConfig(backendConfig);
            case S3 -> S3RemoteStorage.fromConfig(backendConfig);
            default -> instantiate(name, backendConfig);
        };
    }

    /** The keys that start with {@code prefix}, with the prefix stripped. */
    public static Map<String, String> backendConfig(Map<String, ?> brokerConfig, String prefix) {
        Map<String, String> result = new HashMap<>();
        brokerConfig.forEach((key, value) -> {
            if (key.startsWith(prefix) && value != null) {
                result.put(key.substring(prefix.length()), String.valueOf(value));
            }
        });
        return result;
    }

    private static RemoteStorage instantiate(String className, Map<String, String> backendConfig) {
        try {
            Class<?> type = Class.forName(className);
            if (!RemoteStorage.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException(
                        CLASS_NAME_CONFIG + "=" + className + " is not a " + RemoteStorage.class.getName() + ".");
            }
            return (RemoteStorage) type.getConstructor(Map.class).newInstance(backendConfig);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(
                    CLASS_NAME_CONFIG + "=" + className
                            + " is neither 'filesystem', 's3' nor a class on the classpath.",
                    e);
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new IllegalArgumentException(
                    className + " needs a public constructor taking Map<String, String>.", e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(className + " could not be created: " + e.getCause(), e.getCause());
        }
    }

    private static String stringValue(Map<String, ?> config, String key, String defaultValue) {
        Object value = config.get(key);
        return value == null ? defaultValue : String.valueOf(value);
    }
}
