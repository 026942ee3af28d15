-- Synthetic deeds for load tests: inserts N rows with source = 'synthetic' straight into the deeds plugin's
-- table in the PostgreSQL records engine (schema plugin_deeds, created by the host's plugin migrations), plus
-- 16 synthetic onboarded counties next to the 4 of the seed. Every row's search_tokens is built from words
-- that are already in their canonical form (upper-cased, they are what `address::canonical_tokens` gives;
-- the deeds unit test `generator_vocabulary_is_canonical` checks every word below), so the SQL only splits
-- on single spaces and qualifies each word with the county, exactly like `county::record_tokens`.
--
-- Deterministic (picks are hashes of the row number), and idempotent: rows are numbered SYN000000000001...
-- and the number generated so far is kept in seed_state (dataset `deeds:synthetic`), so running it again
-- with the same N adds nothing and a larger N adds the difference.
--
--   psql "$URL" -v rows=10000000 -f plugins/deeds/bench/generate.sql
--
-- For 100000 rows or more the table's indexes (primary key included) are dropped during the load and
-- rebuilt after it, with their exact definitions as read from the catalog: several times faster than
-- maintaining them row by row.

CREATE OR REPLACE FUNCTION plugin_deeds.synthetic_pick(g bigint, salt bigint, n int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT (abs(hashint8extended(g, salt) % n) + 1)::int';

CREATE OR REPLACE FUNCTION plugin_deeds.generate_synthetic_deeds(n bigint) RETURNS bigint
LANGUAGE plpgsql AS $generator$
DECLARE
    -- vocabulary begin
    county_slugs text[] := ARRAY['travis-tx', 'king-wa', 'cook-il', 'maricopa-az', 'dallas-tx', 'bexar-tx',
        'los-angeles-ca', 'san-diego-ca', 'miami-dade-fl', 'kings-ny', 'clark-nv', 'tarrant-tx', 'wayne-mi',
        'santa-clara-ca', 'hennepin-mn', 'fulton-ga', 'denver-co', 'multnomah-or', 'mecklenburg-nc',
        'franklin-oh'];
    county_names text[] := ARRAY['Travis County', 'King County', 'Cook County', 'Maricopa County',
        'Dallas County', 'Bexar County', 'Los Angeles County', 'San Diego County', 'Miami-Dade County',
        'Kings County', 'Clark County', 'Tarrant County', 'Wayne County', 'Santa Clara County',
        'Hennepin County', 'Fulton County', 'Denver County', 'Multnomah County', 'Mecklenburg County',
        'Franklin County'];
    cities text[] := ARRAY['Austin', 'Seattle', 'Chicago', 'Phoenix', 'Dallas', 'San Antonio', 'Los Angeles',
        'San Diego', 'Miami', 'Brooklyn', 'Las Vegas', 'Fort Worth', 'Detroit', 'San Jose', 'Minneapolis',
        'Atlanta', 'Denver', 'Portland', 'Charlotte', 'Columbus'];
    zips int[] := ARRAY[78701, 98101, 60601, 85001, 75201, 78201, 90001, 92101, 33101, 11201, 89101, 76101,
        48201, 95101, 55401, 30301, 80201, 97201, 28201, 43201];
    first_names text[] := ARRAY['Avery', 'Blair', 'Casey', 'Dana', 'Emery', 'Finley', 'Harper', 'Jordan',
        'Kendall', 'Logan', 'Morgan', 'Parker', 'Quinn', 'Reese', 'Riley', 'Rowan', 'Sage', 'Skyler', 'Tatum',
        'Wren', 'Alexis', 'Bailey', 'Cameron', 'Devon', 'Elliot', 'Frankie', 'Hayden', 'Jamie', 'Jesse',
        'Kai', 'Lennon', 'Marley', 'Noel', 'Oakley', 'Peyton', 'Remy', 'Sasha', 'Teagan', 'Val', 'Winter',
        'Arden', 'Briar', 'Carmen', 'Dakota', 'Ellis', 'Gray', 'Hollis', 'Indigo', 'Jules', 'Kerry', 'Linden',
        'Milan', 'Nova', 'Oren', 'Perry', 'Robin', 'Shay', 'Toby', 'Uma', 'Vesper'];
    last_names text[] := ARRAY['Abernathy', 'Achterberg', 'Okonkwo', 'Halvorsen', 'Marchetti', 'Quintero',
        'Lindqvist', 'Oyelaran', 'Castellanos', 'Duplantier', 'Vasquez', 'Nakamura', 'Brannigan', 'Eriksen',
        'Fairweather', 'Gallagher', 'Hargreaves', 'Iwasaki', 'Jablonski', 'Kowalczyk', 'Lachance', 'Mbeki',
        'Novak', 'Oconnell', 'Petrakis', 'Quarles', 'Rasmussen', 'Szabo', 'Thorsen', 'Underhill', 'Valdez',
        'Whitcombe', 'Yilmaz', 'Zimmerman', 'Amsel', 'Bergstrom', 'Calloway', 'Delacroix', 'Esposito',
        'Fenwick', 'Grimaldi', 'Holloway', 'Ishikawa', 'Jovanovic', 'Kincaid', 'Lockhart', 'Moreau', 'Nilsson',
        'Ortega', 'Pemberton', 'Ravenscroft', 'Sandoval', 'Tremblay', 'Ulrich', 'Vance', 'Winslow', 'Yates',
        'Zeller', 'Ashby', 'Blackwood', 'Crowther', 'Drummond', 'Ellsworth', 'Farrow', 'Gustafson',
        'Hawthorne', 'Ingram', 'Jessup', 'Kovacs', 'Larkin', 'Merriweather', 'Northcott', 'Osei', 'Pruitt',
        'Quigley', 'Rutledge', 'Sorensen', 'Tolliver', 'Upton', 'Voss', 'Whitaker', 'Yarrow', 'Zamora',
        'Adeyemi', 'Barrington', 'Cavanaugh', 'Dunmore', 'Eastwood', 'Fitzgerald', 'Goldberg', 'Hendricks',
        'Iverson', 'Jankowski', 'Keller', 'Lindgren', 'Montague', 'Nwosu', 'Oakes', 'Prescott', 'Rios',
        'Stanhope', 'Takahashi', 'Urquhart', 'Villanueva', 'Wakefield', 'Youngblood', 'Zielinski', 'Alcott',
        'Beaumont', 'Chandler', 'Dorsey', 'Everhart', 'Galloway', 'Huxley', 'Inglewood', 'Jorgensen',
        'Kessler', 'Lowry', 'Mcallister', 'Nightingale', 'Okafor', 'Pennington', 'Radcliffe', 'Sinclair',
        'Thackeray', 'Vickers', 'Wexler', 'Yoder', 'Zuniga', 'Aldridge', 'Bellamy', 'Coltrane', 'Dempsey',
        'Eberhardt', 'Fontaine', 'Garrison', 'Hollister', 'Ivanova', 'Kimura', 'Lombardi', 'Mansfield',
        'Norwood', 'Ostrowski', 'Pacheco', 'Redmond', 'Salazar', 'Townsend', 'Vollmer', 'Wolcott', 'Brightwater'];
    lenders text[] := ARRAY['Harborline Bank NA', 'Cedar Bend Mortgage LLC', 'Prairie State Savings Bank',
        'Summit Valley Credit Union', 'Bluewater Home Loans Inc', 'Ironwood Federal Savings',
        'Meridian Trust Company', 'Northstar Lending Group LLC', 'Copperline Capital Bank',
        'Silver Maple Holdings LLC', 'Granite Peak Homes Inc', 'Riverbend Title Company'];
    streets text[] := ARRAY['Oak', 'Maple', 'Cedar', 'Pine', 'Elm', 'Willow', 'Aspen', 'Birch', 'Juniper',
        'Magnolia', 'Sycamore', 'Hickory', 'Laurel', 'Alder', 'Cypress', 'Madrona', 'Sequoia', 'Heron', 'Quail',
        'Ranch', 'Mesa', 'Sunset', 'Canyon', 'Meadow', 'River', 'Lake', 'Hill', 'Valley', 'Spring', 'Summit',
        'Harbor', 'Lamar', 'Camelback', 'Clark', 'Barton', 'Bluebonnet', 'Chestnut', 'Dogwood', 'Hawthorn',
        'Mulberry', 'Redbud', 'Sandpiper', 'Tamarack', 'Wisteria', 'Yucca', 'Agave', 'Bramble', 'Fernwood',
        'Goldenrod', 'Ivy'];
    suffixes text[] := ARRAY['St', 'Ave', 'Blvd', 'Dr', 'Ln', 'Rd', 'Ct', 'Pl', 'Way', 'Cir', 'Ter', 'Pkwy'];
    directionals text[] := ARRAY['N', 'S', 'E', 'W'];
    -- vocabulary end
    doc_types text[] := ARRAY['WARRANTY DEED', 'SPECIAL WARRANTY DEED', 'QUIT CLAIM DEED', 'DEED OF TRUST',
        'MORTGAGE', 'RELEASE OF LIEN', 'TRUSTEES DEED', 'STATUTORY WARRANTY DEED'];
    definitions text[] := '{}';
    definition text;
    index_row record;
    done bigint;
    inserted bigint;
BEGIN
    SELECT coalesce(max(row_count), 0) INTO done FROM plugin_deeds.seed_state WHERE dataset = 'deeds:synthetic';
    IF done >= n THEN
        RETURN 0;
    END IF;

    INSERT INTO plugin_deeds.counties (slug, name, state, onboarded_at, source)
    SELECT slug, name, upper(right(slug, 2)), date '2026-01-01', 'synthetic'
    FROM unnest(county_slugs, county_names) AS c(slug, name)
    ON CONFLICT (slug) DO NOTHING;

    IF n - done >= 100000 THEN
        PERFORM set_config('maintenance_work_mem', '1GB', true);
        FOR index_row IN
            SELECT i.indexrelid::regclass::text AS name, i.indisprimary AS pk, pg_get_indexdef(i.indexrelid) AS def,
                c.conname, pg_get_constraintdef(c.oid) AS condef
            FROM pg_index i LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.contype = 'p'
            WHERE i.indrelid = 'plugin_deeds.deeds'::regclass
        LOOP
            IF index_row.pk THEN
                definitions := definitions || format('ALTER TABLE plugin_deeds.deeds ADD CONSTRAINT %I %s',
                    index_row.conname, index_row.condef);
                EXECUTE format('ALTER TABLE plugin_deeds.deeds DROP CONSTRAINT %I', index_row.conname);
            ELSE
                definitions := definitions || index_row.def;
                EXECUTE 'DROP INDEX ' || index_row.name;
            END IF;
        END LOOP;
    END IF;

    INSERT INTO plugin_deeds.deeds (county, instrument_number, doc_type, grantor, grantee, legal_description,
        source_url, recorded_date, property_address, search_tokens, source)
    SELECT slug, number, doc_type, grantor, grantee, legal, 'https://demo.invalid/deeds/' || slug || '/' || number,
        recorded, street_line || ', ' || city || ', ' || st || ' ' || zip,
        string_to_array(slug || ':' || replace(upper(grantor || ' ' || grantee || ' ' || street_line || ' ' ||
            city || ' ' || st || ' ' || zip), ' ', ' ' || slug || ':'), ' '),
        'synthetic'
    FROM (
        SELECT county_slugs[c] AS slug, cities[c] AS city, upper(right(county_slugs[c], 2)) AS st,
            lpad((zips[c] + plugin_deeds.synthetic_pick(g, 1, 90) - 1)::text, 5, '0') AS zip,
            'SYN' || lpad(g::text, 12, '0') AS number,
            doc_types[plugin_deeds.synthetic_pick(g, 2, cardinality(doc_types))] AS doc_type,
            CASE WHEN plugin_deeds.synthetic_pick(g, 3, 10) <= 3
                THEN first_names[plugin_deeds.synthetic_pick(g, 4, cardinality(first_names))] || ' ' || last_names[l1] || ' and '
                    || first_names[plugin_deeds.synthetic_pick(g, 5, cardinality(first_names))] || ' ' || last_names[l1]
                ELSE first_names[plugin_deeds.synthetic_pick(g, 4, cardinality(first_names))] || ' ' || last_names[l1]
            END AS grantor,
            CASE WHEN plugin_deeds.synthetic_pick(g, 6, 2) = 1
                THEN first_names[plugin_deeds.synthetic_pick(g, 7, cardinality(first_names))] || ' '
                    || last_names[plugin_deeds.synthetic_pick(g, 8, cardinality(last_names))]
                ELSE lenders[plugin_deeds.synthetic_pick(g, 9, cardinality(lenders))]
            END AS grantee,
            plugin_deeds.synthetic_pick(g, 10, 9999)::text || ' '
                || CASE WHEN plugin_deeds.synthetic_pick(g, 11, 5) = 1
                    THEN directionals[plugin_deeds.synthetic_pick(g, 12, cardinality(directionals))] || ' ' ELSE '' END
                || streets[plugin_deeds.synthetic_pick(g, 13, cardinality(streets))] || ' '
                || suffixes[plugin_deeds.synthetic_pick(g, 14, cardinality(suffixes))] AS street_line,
            'LOT ' || plugin_deeds.synthetic_pick(g, 15, 60) || ' BLK '
                || chr(64 + plugin_deeds.synthetic_pick(g, 16, 26)) || ' SYNTHETIC ADDITION' AS legal,
            date '2000-01-01' + plugin_deeds.synthetic_pick(g, 17, 9496) - 1 AS recorded
        FROM generate_series(done + 1, n) AS g,
            LATERAL (SELECT (g % cardinality(county_slugs))::int + 1 AS c,
                plugin_deeds.synthetic_pick(g, 18, cardinality(last_names)) AS l1) AS p
    ) AS s;
    GET DIAGNOSTICS inserted = ROW_COUNT;
    RAISE NOTICE 'inserted % rows in %', inserted, clock_timestamp() - statement_timestamp();

    FOREACH definition IN ARRAY definitions LOOP
        EXECUTE definition;
        RAISE NOTICE '% done at %', split_part(definition, ' USING', 1), clock_timestamp() - statement_timestamp();
    END LOOP;
    INSERT INTO plugin_deeds.seed_state (dataset, checksum, row_count) VALUES ('deeds:synthetic', 'synthetic', n)
    ON CONFLICT (dataset) DO UPDATE SET row_count = EXCLUDED.row_count, synced_at = now();
    RETURN inserted;
END
$generator$;

-- run: the lines below use psql variables; tests call the function above directly.
\if :{?rows}
\else
\set rows 10000000
\endif
\timing on
SELECT plugin_deeds.generate_synthetic_deeds(:rows) AS inserted;
-- Hint bits and the visibility map now, rather than dirtied by the first searches.
VACUUM (ANALYZE) plugin_deeds.deeds;
SELECT count(*) AS synthetic_rows FROM plugin_deeds.deeds WHERE source = 'synthetic';
