import { ApolloClient, ApolloError, gql, HttpLink, InMemoryCache, type NormalizedCacheObject } from '@apollo/client/core';
import { ClientError, GraphQLClient, gql as rgql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * /graphql as real third-party clients use it, over real HTTP: Apollo Client 3 (HttpLink with
 * fetch, its normalising cache adding `__typename` everywhere) and graphql-request.
 */

let s: TestServer;
let admin: string;
let apollo: ApolloClient<NormalizedCacheObject>;
let request: GraphQLClient;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
  apollo = new ApolloClient({
    link: new HttpLink({ uri: `${s.url}/graphql`, fetch }),
    cache: new InMemoryCache(),
    defaultOptions: { query: { fetchPolicy: 'network-only' } },
  });
  request = new GraphQLClient(`${s.url}/graphql`, { fetch });
});
afterAll(async () => {
  await apollo.stop();
  await s.close();
});

describe('Apollo Client 3', () => {
  test('a mutation with a token, then a nested query that reads it back', async () => {
    const created = await apollo.mutate({
      mutation: gql`
        mutation Create($name: String!, $artists: [String!]) {
          createSong(name: $name, artists: $artists) { id name artists }
        }
      `,
      variables: { name: 'Apollo Song', artists: ['A. Client'] },
      context: { headers: { authorization: `Bearer ${admin}` } },
    });
    const song = created.data.createSong;
    expect(song).toEqual({ __typename: 'Song', id: expect.any(Number), name: 'Apollo Song', artists: ['A. Client'] });

    const service = (
      await apollo.mutate({
        mutation: gql`
          mutation { createService(date: "2024-03-03T10:00:00Z", serviceType: SUN_AM) { id } }
        `,
        context: { headers: { authorization: `Bearer ${admin}` } },
      })
    ).data.createService;
    await apollo.mutate({
      mutation: gql`
        mutation Link($service: Int!, $song: Int!) { addSongToService(serviceId: $service, songId: $song) { id } }
      `,
      variables: { service: service.id, song: song.id },
      context: { headers: { authorization: `Bearer ${admin}` } },
    });

    const { data } = await apollo.query({
      query: gql`
        query One($id: Int!) { song(id: $id) { name services { date serviceType songs(limit: 10) { name } } } }
      `,
      variables: { id: song.id },
    });
    expect(data.song).toEqual({
      __typename: 'Song',
      name: 'Apollo Song',
      services: [
        {
          __typename: 'Service',
          date: Date.UTC(2024, 2, 3, 10),
          serviceType: 'SUN_AM',
          songs: [{ __typename: 'Song', name: 'Apollo Song' }],
        },
      ],
    });
  });

  test('resolver errors reach graphQLErrors with their contract codes', async () => {
    const codes = async (mutation: ReturnType<typeof gql>, token?: string) => {
      const error = await apollo
        .mutate({ mutation, context: token ? { headers: { authorization: `Bearer ${token}` } } : {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApolloError);
      return (error as ApolloError).graphQLErrors.map((e) => e.extensions?.code);
    };
    expect(await codes(gql`mutation { deleteSong(id: 1) }`)).toEqual(['UNAUTHENTICATED']);
    expect(await codes(gql`mutation { updateSong(id: 987654, name: "x") { id } }`, admin)).toEqual(['NOT_FOUND']);
    expect(await codes(gql`mutation { createSong(name: "") { id } }`, admin)).toEqual(['VALIDATION_FAILED']);
  });

  test('a refused request (400) carries BAD_REQUEST in the network error\'s result', async () => {
    const error = await apollo
      .query({ query: gql`query($id: Int!) { song(id: $id) { id } }`, variables: { id: 'seven' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApolloError);
    const network = (error as ApolloError).networkError as unknown as { statusCode: number; result: { errors: { extensions: { code: string } }[] } };
    expect(network.statusCode).toBe(400);
    expect(network.result.errors.map((e) => e.extensions.code)).toEqual(['BAD_REQUEST']);
  });
});

describe('graphql-request', () => {
  test('queries, and a mutation with a token', async () => {
    const { createSong } = await request.request<{ createSong: { id: number; name: string } }>(
      rgql`mutation($name: String!) { createSong(name: $name) { id name } }`,
      { name: 'Request Song' },
      { authorization: `Bearer ${admin}` },
    );
    expect(createSong).toEqual({ id: expect.any(Number), name: 'Request Song' });
    const data = await request.request<{ song: unknown; songsByArtist: unknown[] }>(
      rgql`query($id: Int!) { song(id: $id) { id name artists services { id } } songsByArtist(artist: "nobody") { id } }`,
      { id: createSong.id },
    );
    expect(data).toEqual({ song: { id: createSong.id, name: 'Request Song', artists: [], services: [] }, songsByArtist: [] });
  });

  test('errors come back as a ClientError with extensions.code', async () => {
    const forbidden = await request
      .request(rgql`mutation { createSong(name: "Nope") { id } }`, {}, { authorization: 'Bearer not-a-token' })
      .catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(ClientError);
    expect((forbidden as ClientError).response.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);

    const bad = await request.request(rgql`{ songs(limit: "ten") { id } }`).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ClientError);
    expect((bad as ClientError).response.status).toBe(400);
    expect((bad as ClientError).response.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST']);
  });
});
