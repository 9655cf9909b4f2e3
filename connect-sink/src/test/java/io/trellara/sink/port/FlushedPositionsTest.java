package io.trellara.sink.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FlushedPositionsTest {
  private static final TopicPartitionKey P0 = new TopicPartitionKey("t", 0);
  private static final TopicPartitionKey P1 = new TopicPartitionKey("t", 1);

  @Test
  void reportsPositionsOnlyOnceTheTargetHasFlushedPastThem() {
    FlushedPositions book = new FlushedPositions();
    assertThat(book.offer(Map.of(P0, 10L), 0x100, 0x80)).isEmpty();
    assertThat(book.allFlushed()).isFalse();
    assertThat(book.offer(Map.of(P0, 20L, P1, 5L), 0x200, 0x150))
        .containsExactly(Map.entry(P0, 10L));
    assertThat(book.offer(Map.of(P0, 30L, P1, 6L), 0x300, 0x300))
        .containsOnly(Map.entry(P0, 30L), Map.entry(P1, 6L));
    assertThat(book.allFlushed()).isTrue();
  }

  @Test
  void keepsThePositionsOfPartitionsTheNewestOfferDoesNotName() {
    FlushedPositions book = new FlushedPositions();
    book.offer(Map.of(P0, 10L, P1, 3L), 0x100, 0x100);
    assertThat(book.offer(Map.of(P0, 11L), 0x200, 0x200))
        .containsOnly(Map.entry(P0, 11L), Map.entry(P1, 3L));
  }

  @Test
  void takesAnInsertPositionJustPastAPageHeaderAsFlushedAtThePageBoundary() {
    assertThat(FlushedPositions.flushedUpTo(0x3000000L, 0x3000028L))
        .isTrue(); // a segment's long header
    assertThat(FlushedPositions.flushedUpTo(0x3002000L, 0x3002018L))
        .isTrue(); // a page's short header
    assertThat(FlushedPositions.flushedUpTo(0x3002000L, 0x3002030L))
        .isFalse(); // a record after the header
    assertThat(FlushedPositions.flushedUpTo(0x3001ff0L, 0x3002018L))
        .isFalse(); // not at the boundary
  }

  @Test
  void forgetsEverythingWhenCleared() {
    FlushedPositions book = new FlushedPositions();
    book.offer(Map.of(P0, 10L), 0x100, 0x100);
    book.offer(Map.of(P0, 20L), 0x200, 0x100);
    book.clear();
    assertThat(book.allFlushed()).isTrue();
    assertThat(book.offer(Map.of(P1, 1L), 0x300, 0x300)).containsOnly(Map.entry(P1, 1L));
  }
}
