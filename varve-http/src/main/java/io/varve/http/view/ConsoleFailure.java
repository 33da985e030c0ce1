package io.varve.http.view;

/**
 * Why the node refused a console request, as an HTTP status: 400 for input the Kafka API refuses (an unknown config
 * key, a value out of range, a group that is not empty), 403 when the console's principal is not authorized, 404 for
 * a resource that does not exist. The message is the Kafka error's name and message.
 */
public final class ConsoleFailure extends RuntimeException {
    private final int status;

    public ConsoleFailure(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
