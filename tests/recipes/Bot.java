// Plays a random legal action in any game, over the stdio protocol (JSON lines): no library needed.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Random;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Random random = new Random();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("{\"type\": \"game_start\"")) {
                String seed = line.replaceAll(".*\"seed\": (\\d+).*", "$1");
                random = new Random(Long.parseUnsignedLong(seed));
            } else if (line.startsWith("{\"type\": \"decision\"")) {
                String legal = line.substring(line.indexOf("\"legal\": \"") + 10);
                String[] actions = legal.substring(0, legal.indexOf('"')).split(" ");
                System.out.println(actions[random.nextInt(actions.length)]);
                System.out.flush();
            }
        }
    }
}
