package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GoldenVectorsTest {

  @Test
  void everyCommittedVectorEncodesToItsBytes() throws Exception {
    List<GoldenVectors.Vector> vectors = GoldenVectors.load();
    assertThat(vectors).hasSizeGreaterThanOrEqualTo(GoldenVectors.CASES.length);
    for (GoldenVectors.Vector v : vectors) {
      assertThat(Hex.of(RowIdentityText.encode(v.domain(), v.types(), v.values())))
          .as("%s %s %s", v.domain(), v.types(), v.values())
          .isEqualTo(v.hex());
    }
  }

  @Test
  void coversEveryTypeTagDomainAndNullState() throws Exception {
    Set<TypeTag> tags = new HashSet<>();
    Set<TypeTag> nullTags = new HashSet<>();
    Set<RowIdentityDomain> domains = new HashSet<>();
    for (GoldenVectors.Vector v : GoldenVectors.load()) {
      domains.add(v.domain());
      DecodedIdentity d = RowIdentityDecoder.decode(Hex.parse(v.hex()));
      for (DecodedField f : d.fields()) {
        tags.add(f.tag());
        if (f.isNull()) {
          nullTags.add(f.tag());
        }
      }
    }
    assertThat(tags).as("tags").containsExactlyInAnyOrder(TypeTag.values());
    assertThat(domains).as("domains").containsExactlyInAnyOrder(RowIdentityDomain.values());
    Set<TypeTag> scalarTags = new HashSet<>(List.of(TypeTag.values()));
    scalarTags.removeIf(t -> t.structural());
    assertThat(nullTags).as("NULL states").containsAll(scalarTags);
  }

  @Test
  void decodingRendersTextThatEncodesToTheSameBytes() throws Exception {
    for (GoldenVectors.Vector v : GoldenVectors.load()) {
      DecodedIdentity d = RowIdentityText.decodeHex(v.hex());
      List<String> rendered = new ArrayList<>();
      for (DecodedField f : d.fields()) {
        rendered.add(f.isNull() ? null : f.value());
      }
      assertThat(Hex.of(RowIdentityText.encode(d.domain(), v.types(), rendered)))
          .as("round trip of %s rendered as %s", v.values(), rendered)
          .isEqualTo(v.hex());
    }
  }
}
