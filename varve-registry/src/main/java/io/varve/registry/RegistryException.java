package io.varve.registry;

/**
 * A refusal as Confluent Schema Registry answers it: an HTTP status, Confluent's numeric error code and a message
 * ({@code {"error_code":40401,"message":"Subject 'x' not found."}}).
 */
public final class RegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    public RegistryException(int httpStatus, int errorCode, String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }

    public static RegistryException subjectNotFound(String subject) {
        return new RegistryException(404, 40401, "Subject '" + subject + "' not found.");
    }

    public static RegistryException versionNotFound(String subject, Object version) {
        return new RegistryException(404, 40402, "Version " + version + " not found.");
    }

    public static RegistryException schemaNotFound(String what) {
        return new RegistryException(404, 40403, what);
    }

    public static RegistryException subjectSoftDeleted(String subject) {
        return new RegistryException(
                404, 40404, "Subject '" + subject + "' was soft deleted. Set permanent=true to delete permanently");
    }

    public static RegistryException subjectNotSoftDeleted(String subject) {
        return new RegistryException(
                404, 40405, "Subject '" + subject + "' was not deleted first before being permanently deleted");
    }

    public static RegistryException versionSoftDeleted(String subject, int version) {
        return new RegistryException(
                404,
                40406,
                "Subject '" + subject + "' Version " + version
                        + " was soft deleted. Set permanent=true to delete permanently");
    }

    public static RegistryException versionNotSoftDeleted(String subject, int version) {
        return new RegistryException(
                404,
                40407,
                "Subject '" + subject + "' Version " + version
                        + " was not deleted first before being permanently deleted");
    }

    public static RegistryException subjectConfigNotFound(String subject) {
        return new RegistryException(
                404, 40408, "Subject '" + subject + "' does not have subject-level compatibility configured");
    }

    public static RegistryException subjectModeNotFound(String subject) {
        return new RegistryException(
                404, 40409, "Subject '" + subject + "' does not have subject-level mode configured");
    }

    public static RegistryException incompatible(String message) {
        return new RegistryException(409, 409, message);
    }

    public static RegistryException invalidSchema(String message) {
        return new RegistryException(422, 42201, message);
    }

    public static RegistryException invalidVersion(String version) {
        return new RegistryException(
                422,
                42202,
                "The specified version '" + version + "' is not a valid version id. Allowed values are between [1, "
                        + Integer.MAX_VALUE + "] and the string \"latest\"");
    }

    public static RegistryException invalidCompatibilityLevel(String level) {
        return new RegistryException(
                422,
                42203,
                "Invalid compatibility level: " + level + ". Valid values are none, backward, forward, full,"
                        + " backward_transitive, forward_transitive, and full_transitive");
    }

    public static RegistryException invalidMode(String mode) {
        return new RegistryException(
                422, 42204, "Invalid mode: " + mode + ". Valid values are READWRITE, READONLY and IMPORT");
    }

    public static RegistryException operationNotPermitted(String message) {
        return new RegistryException(422, 42205, message);
    }

    public static RegistryException referenceExists(String message) {
        return new RegistryException(422, 42206, message);
    }

    public static RegistryException idTaken(String message) {
        return new RegistryException(422, 42207, message);
    }

    public static RegistryException invalidSubject(String subject) {
        return new RegistryException(422, 42208, "Invalid subject: '" + subject + "'");
    }

    public static RegistryException storeError(String message) {
        return new RegistryException(500, 50001, message);
    }

    public static RegistryException notWriter(String message) {
        return new RegistryException(500, 50003, message);
    }
}
